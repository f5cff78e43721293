// The CLI's JSON of a record, from its table (membudget/base/record.hpp); web/src/record-json.ts is the same walk
// over the same tables for the page's download, and tests/wasm/engine.test.ts holds the two byte for byte.
#include "io/json_record.hpp"

#include <cmath>
#include <string>

#include "io/json_parts.hpp"
#include "membudget/base/record.hpp"
#include "membudget/base/text.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"

namespace membudget::detail {

using nlohmann::ordered_json;

namespace {

// What a walk carries down: the line ids of the nearest record above with lines, which a byLine column keys by, and
// the context a record above gives (Cell::context).
struct Walk {
    std::span<const Line> lines;
    const void* context = nullptr;
};

// A child's walk: the context its parent's read gave, if any.
Walk below(Walk walk, const Cell& cell) {
    if (cell.childContext) walk.context = cell.childContext;
    return walk;
}

void writeColumns(ordered_json& out, const void* record, const RecordTable& table, Walk walk);

// A double as JSON writes it: scaled, rounded to the column's digits (std::round halves away from zero), then as an
// integer where integral.
ordered_json numberJson(const Column& column, double value) {
    if (column.scaleDigits != 0) value *= kPowersOfTen[column.scaleDigits];
    if (column.roundDigits != kExact) value = std::round(value * kPowersOfTen[column.roundDigits]) / kPowersOfTen[column.roundDigits];
    return column.kind == CellKind::fraction ? ordered_json(value) : number(value);
}

// An assignment's text as its field's JSON type (numbers, true/false, strings).
ordered_json typedValue(const Assignment& a) {
    const FieldSpec* field = findField(a.key);
    if (field && (field->kind == FieldKind::integer || field->kind == FieldKind::number))
        if (const auto value = parseNumber(a.text)) return number(*value);
    if (field && field->kind == FieldKind::boolean) return a.text == "true";
    return a.text;
}

// A column that is not there: null, or nothing (kOmitIfAbsent); a spliced record's columns each so.
void writeAbsent(ordered_json& out, const Column& column);

void writeAbsentRecord(ordered_json& out, const RecordTable& table) {
    for (const Column& column : table.columns)
        if (!column.has(kPageOnly)) writeAbsent(out, column);
}

void writeAbsent(ordered_json& out, const Column& column) {
    if (column.has(kOmitIfAbsent)) return;
    if (column.kind == CellKind::record && *column.json == '\0')
        writeAbsentRecord(out, *column.child);
    else
        out[column.json] = nullptr;
}

ordered_json childJson(const void* record, const RecordTable& table, Walk walk) {
    ordered_json out = ordered_json::object();
    writeColumns(out, record, table, walk);
    return out;
}

ordered_json valueJson(const Column& column, const Cell& cell, Walk walk);

// Records of (key, value) as one object: each record's first column the key, its second the value.
ordered_json keyedJson(const unsigned char* item, const Cell& cell, const RecordTable& table, Walk walk) {
    ordered_json out = ordered_json::object();
    for (std::size_t i = 0; i < cell.count; ++i, item += cell.stride) {
        Cell key, value;
        table.columns[0].read(item, key);
        table.columns[1].read(item, value);
        out[std::string(key.text)] = valueJson(table.columns[1], value, walk);
    }
    return out;
}

ordered_json valueJson(const Column& column, const Cell& cell, Walk walk) {
    switch (column.kind) {
        case CellKind::number:
        case CellKind::fraction:
            return numberJson(column, cell.number);
        case CellKind::flag:
            return cell.number != 0;
        case CellKind::text:
            return std::string(cell.text);
        case CellKind::choice: {
            const auto index = static_cast<std::size_t>(cell.number);
            return std::string(index < column.choices.size() ? column.choices[index] : std::string_view());
        }
        case CellKind::texts: {
            ordered_json out = ordered_json::array();
            for (const std::string_view text : cell.texts) out.push_back(std::string(text));
            return out;
        }
        case CellKind::numbers: {
            ordered_json out = ordered_json::array();
            for (const double value : cell.numbers) out.push_back(value);
            return out;
        }
        case CellKind::byLine: {
            ordered_json out = ordered_json::object();
            for (std::size_t i = 0; i < cell.numbers.size() && i < walk.lines.size(); ++i)
                out[std::string(toString(walk.lines[i].id))] = numberJson(column, cell.numbers[i]);
            return out;
        }
        case CellKind::parts: {
            ordered_json out = ordered_json::object();
            for (std::size_t i = 0; i < cell.numbers.size(); ++i)
                out[std::string(cell.partLabel(i).id)] = numberJson(column, cell.numbers[i]);
            return out;
        }
        case CellKind::records: {
            const auto* item = static_cast<const unsigned char*>(cell.child);
            if (column.has(kByKey)) return keyedJson(item, cell, *column.child, walk);
            ordered_json out = ordered_json::array();
            for (std::size_t i = 0; i < cell.count; ++i) out.push_back(childJson(item + i * cell.stride, *column.child, walk));
            return out;
        }
        case CellKind::settings: {
            ordered_json out = ordered_json::object();
            const auto* items = static_cast<const Assignment*>(cell.child);
            for (std::size_t i = 0; i < cell.count; ++i) out[items[i].key] = typedValue(items[i]);
            return out;
        }
        case CellKind::config:
            return configJson(*static_cast<const Config*>(cell.child));
        case CellKind::record:
            return childJson(cell.child, *column.child, walk);
    }
    return nullptr;
}

void writeColumn(ordered_json& out, const void* record, const RecordTable& table, std::size_t index, Walk walk) {
    const Column& column = table.columns[index];
    if (column.has(kPageOnly)) return;
    if (!columnPresent(table, index, record)) return writeAbsent(out, column);
    Cell cell;
    cell.context = walk.context;
    column.read(record, cell);
    walk = below(walk, cell);
    if (column.kind == CellKind::record && !recordPresent(*column.child, cell.child)) return writeAbsent(out, column);
    if (column.kind == CellKind::record && *column.json == '\0') return writeColumns(out, cell.child, *column.child, walk);
    if (cell.none && column.none != nullptr) {
        out[column.json] = column.none;
    } else if (cell.none || (column.has(kNullIfFalsy) && !truthy(column, cell))) {
        out[column.json] = nullptr;
    } else {
        out[column.json] = valueJson(column, cell, walk);
    }
}

void writeColumns(ordered_json& out, const void* record, const RecordTable& table, Walk walk) {
    // A record with lines gives their ids to the byLine columns of the records below it.
    for (const Column& column : table.columns)
        if (column.child == &kLineRecord && std::string_view(column.page) == "lines") {
            Cell cell;
            column.read(record, cell);
            walk.lines = {static_cast<const Line*>(cell.child), cell.count};
        }
    if (table.errorsColumn != kAlways) {
        Cell errors;
        errors.context = walk.context;
        table.columns[table.errorsColumn].read(record, errors);
        if (errors.count > 0) {
            // A refused record says what it is and why, and nothing else.
            for (std::size_t i = 0; i < table.columns.size(); ++i)
                if (table.columns[i].has(kKeepOnError)) writeColumn(out, record, table, i, walk);
            out[table.columns[table.errorsColumn].json] = valueJson(table.columns[table.errorsColumn], errors, walk);
            return;
        }
    }
    for (std::size_t i = 0; i < table.columns.size(); ++i) writeColumn(out, record, table, i, walk);
}

}  // namespace

void writeRecord(ordered_json& out, const void* record, const RecordTable& table, const void* context) {
    writeColumns(out, record, table, Walk{{}, context});
}

ordered_json recordJson(const void* record, const RecordTable& table, const void* context) {
    return childJson(record, table, Walk{{}, context});
}

ordered_json configJson(const Config& config) {
    ordered_json out = ordered_json::object();
    for (const auto& field : fields()) {
        std::visit(
            [&](auto member) {
                if constexpr (std::is_same_v<decltype(member), ChoiceField>) {
                    out[std::string(field.key)] = std::string(member.get(config));
                } else {
                    const auto& value = config.*member;
                    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, double>)
                        out[std::string(field.key)] = number(value);
                    else
                        out[std::string(field.key)] = value;
                }
            },
            field.member);
    }
    return out;
}

}  // namespace membudget::detail
