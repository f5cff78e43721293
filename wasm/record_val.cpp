// The wasm's walk of record tables (membudget/base/record.hpp): a record as the page's plain object, each column at
// its page key. The same tables give the CLI's JSON (engine/src/io/json_record.cpp) and the page's types
// (web/src/generated/records.ts), so a new column needs no edit here.
#include <string>
#include <string_view>

#include "glue.hpp"
#include "membudget/base/record.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"

namespace membudget::wasm {

namespace {

void writeColumns(val& out, const void* record, const RecordTable& table, const void* context);

val textVal(std::string_view text) { return val(std::string(text)); }

// A list of texts in one crossing where it can: joined by U+001F and split in JS (a push per item from wasm is a call
// each, as long as the rest of a field change's fields' states together); item by item where a text holds U+001F.
val textsVal(const std::vector<std::string_view>& texts) {
    if (texts.empty()) return val::array();
    std::string joined;
    for (const std::string_view text : texts) {
        if (text.find('\x1f') != std::string_view::npos) {
            val out = val::array();
            for (const std::string_view t : texts) out.call<void>("push", textVal(t));
            return out;
        }
        if (!joined.empty()) joined += '\x1f';
        joined += text;
    }
    return val(joined).call<val>("split", std::string("\x1f"));
}

val numbersVal(std::span<const double> numbers) {
    val out = val::array();
    for (const double value : numbers) out.call<void>("push", value);
    return out;
}

val partsVal(const Cell& cell) {
    val out = val::array();
    for (std::size_t i = 0; i < cell.numbers.size(); ++i) {
        const PartLabel label = cell.partLabel(i);
        val part = val::object();
        part.set("id", textVal(label.id));
        part.set("label", textVal(label.label));
        part.set("formula", textVal(label.formula));
        part.set("seconds", cell.numbers[i]);
        out.call<void>("push", part);
    }
    return out;
}

val settingsVal(const Cell& cell) {
    val out = val::array();
    const auto* items = static_cast<const Assignment*>(cell.child);
    for (std::size_t i = 0; i < cell.count; ++i) {
        val item = val::object();
        item.set("key", items[i].key);
        item.set("text", items[i].text);
        out.call<void>("push", item);
    }
    return out;
}

val valueVal(const Column& column, const Cell& cell);
val recordAt(const void* record, const RecordTable& table, const void* context);
val arrayAt(const void* first, std::size_t count, std::size_t stride, const RecordTable& table, const void* context);

// Records of (key, value) as one object: each record's first column the key, its second the value.
val keyedVal(const Cell& cell, const RecordTable& table) {
    val out = val::object();
    const auto* item = static_cast<const unsigned char*>(cell.child);
    for (std::size_t i = 0; i < cell.count; ++i, item += cell.stride) {
        Cell key, value;
        table.columns[0].read(item, key);
        table.columns[1].read(item, value);
        out.set(std::string(key.text), valueVal(table.columns[1], value));
    }
    return out;
}

val valueVal(const Column& column, const Cell& cell) {
    if (cell.none) return column.none != nullptr ? val(std::string(column.none)) : val::null();
    switch (column.kind) {
        case CellKind::number:
        case CellKind::fraction:
            return val(cell.number);
        case CellKind::flag:
            return val(cell.number != 0);
        case CellKind::text:
            return textVal(cell.text);
        case CellKind::choice: {
            const auto index = static_cast<std::size_t>(cell.number);
            return textVal(index < column.choices.size() ? column.choices[index] : std::string_view());
        }
        case CellKind::texts:
            return textsVal(cell.texts);
        case CellKind::numbers:
        case CellKind::byLine:
            return numbersVal(cell.numbers);
        case CellKind::parts:
            return partsVal(cell);
        case CellKind::records:
            if (column.has(kByKey)) return keyedVal(cell, *column.child);
            return arrayAt(cell.child, cell.count, cell.stride, *column.child, cell.childContext ? cell.childContext : cell.context);
        case CellKind::settings:
            return settingsVal(cell);
        case CellKind::config:
            return val(*static_cast<const Config*>(cell.child));
        case CellKind::record:
            return recordPresent(*column.child, cell.child)
                       ? recordAt(cell.child, *column.child, cell.childContext ? cell.childContext : cell.context)
                       : val::null();
    }
    return val::undefined();
}

void writeColumns(val& out, const void* record, const RecordTable& table, const void* context) {
    for (const Column& column : table.columns) {
        if (column.has(kJsonOnly)) continue;
        Cell cell;
        cell.context = context;
        column.read(record, cell);
        // A record whose page key is "" holds its columns in this object, there or not (a group the JSON nests, which
        // it leaves out or nulls where absent, as web/src/record-json.ts does from these columns).
        if (column.kind == CellKind::record && *column.page == '\0') {
            writeColumns(out, cell.child, *column.child, cell.childContext ? cell.childContext : context);
            continue;
        }
        out.set(column.page, valueVal(column, cell));
    }
}

val recordAt(const void* record, const RecordTable& table, const void* context) {
    val out = val::object();
    writeColumns(out, record, table, context);
    return out;
}

val arrayAt(const void* first, std::size_t count, std::size_t stride, const RecordTable& table, const void* context) {
    val out = val::array();
    const auto* item = static_cast<const unsigned char*>(first);
    for (std::size_t i = 0; i < count; ++i) out.call<void>("push", recordAt(item + i * stride, table, context));
    return out;
}

}  // namespace

val recordObject(const void* record, const RecordTable& table) { return recordAt(record, table, nullptr); }

val recordArray(const void* first, std::size_t count, std::size_t stride, const RecordTable& table) {
    return arrayAt(first, count, stride, table, nullptr);
}

}  // namespace membudget::wasm
