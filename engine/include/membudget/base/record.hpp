// A record that leaves the engine, described once: its columns, in the order the JSON writes them, each with the
// page's key, the JSON's key, what it holds, how JSON rounds it, when it is there, and the table of a child record.
// Every walker reads the same table: the CLI's JSON (io/json_record.cpp), the wasm's objects (wasm/glue.cpp), and,
// through `membudget records`, the page's generated types and its JSON download (scripts/record-types.mjs). A new
// output is its struct member and one row here; a walker never names a member.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "membudget/base/choices.hpp"

// The wasm modules write no JSON and show no documentation: their tables leave both texts out (wasm/wasm.cmake), and
// a table's last columns where only the JSON has them (#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE around them).
#ifdef MEMBUDGET_RECORD_TEXT_OUTSIDE
#define RECORD_JSON(key) nullptr
#define RECORD_DOC(text) nullptr
#define RECORD_NAME(name) nullptr
#else
#define RECORD_JSON(key) key
#define RECORD_DOC(text) text
#define RECORD_NAME(name) name
#endif

namespace membudget {

struct Config;
struct RecordTable;

// What a column holds.
enum class CellKind : std::uint8_t {
    number,    // a double (bytes, counts, seconds): JSON writes an integer where it is integral, else the shortest double
    fraction,  // a double that JSON keeps a double (0.0)
    flag,      // a bool
    text,      // a string
    choice,    // an enum, as its id
    texts,     // a list of strings
    numbers,   // a list of doubles
    record,    // one child record (nested in the JSON and on the page; "" as a key: its columns spliced into the parent)
    records,   // a list of child records
    parts,     // seconds per part, each with its id, label and formula: the page [{id, label, formula, seconds}], JSON {id: value}
    byLine,    // numbers aligned with the lines of the record that holds this one: the page an array, JSON {line id: value}
    config,    // a configuration: its fields by key (the page: the field table's value object)
    settings,  // assignments key = text: the page [{key, text}], JSON {key: the value typed by its field}
};

// When and where a column is written.
enum ColumnFlag : std::uint16_t {
    kPageOnly = 1u << 0,              // not in the JSON
    kJsonOnly = 1u << 1,              // not on the page
    kNullIfFalsy = 1u << 2,           // JSON null where the value is 0 or less, or empty
    kOmitIfAbsent = 1u << 3,          // where the column is absent (presentIf, or its record absent): JSON leaves it out, else null
    kKeepOnError = 1u << 4,           // written beside the errors of a record that has some (the table's errorsColumn)
    kPresentIfNot = 1u << 5,          // presentIf's column must be falsy, not truthy
    kOptional = 1u << 6,              // may hold no value: null on the page and in JSON, or `none` for a choice
    kFieldKey = 1u << 7,              // a key of the field table (text, texts, or the key of a kByKey record)
    kByKey = 1u << 8,                 // records of (key, value): an object by key, on the page and in JSON
    kHidden = kPageOnly | kJsonOnly,  // read by the walkers (a record's presence), written nowhere
};

inline constexpr std::uint8_t kAlways = 0xFF;  // no condition: presentIf and errorsColumn
inline constexpr std::uint8_t kExact = 0xFF;   // no rounding

// A part's id (the JSON's key), label and formula.
struct PartLabel {
    std::string_view id, label, formula;
};

// What one column of one record holds, as its read function fills it. Walkers reuse one per column.
struct Cell {
    bool none = false;                              // kOptional: no value
    double number = 0;                              // number, fraction, flag (0 or 1), choice (the enumerator's index)
    std::string_view text;                          // text: the record's own string or static text
    std::string owned;                              // a text computed for the read (`text` views it)
    const void* child = nullptr;                    // record, config: the child (nullptr: absent); records, settings: the first item
    std::size_t count = 0, stride = 0;              // records, settings: the items and their size
    std::span<const double> numbers;                // numbers, byLine, parts (seconds)
    std::vector<std::string_view> texts;            // texts
    std::vector<std::string> ownedTexts;            // texts computed for the read (`texts` views them)
    PartLabel (*partLabel)(std::size_t) = nullptr;  // parts: the label of each
    // What the record alone cannot say, which the record above gives (a plan row's query: the plan's base
    // configuration): the walker hands it to every read, and a read of a child sets childContext for its children.
    const void* context = nullptr;
    const void* childContext = nullptr;
};

struct Column {
    const char* page;  // the page's key (camelCase); "" for a record whose columns the page's object holds itself
    void (*read)(const void* record, Cell& out) = nullptr;
    const RecordTable* child = nullptr;         // record, records: the child's table (a group: this record's own)
    std::span<const std::string_view> choices;  // choice: the ids by index
    const char* none = nullptr;                 // choice with kOptional: the id written for none (nullptr: null)
#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE
    const char* json = nullptr;  // the JSON's key (snake_case); "" for a record whose columns the JSON object holds itself
    const char* doc = nullptr;   // what it is, for the generated types
#endif
    CellKind kind = CellKind::number;
    std::uint8_t roundDigits = kExact;  // JSON rounds to 10^−digits (halves away from zero)
    std::uint8_t scaleDigits = 0;       // JSON multiplies by 10^digits first (seconds → ms)
    std::uint8_t presentIf = kAlways;   // a column of the same table that must be truthy for this one to be written
    std::uint16_t flags = 0;

    constexpr bool has(std::uint16_t flag) const { return (flags & flag) == flag; }
};

struct RecordTable {
    const char* name;  // the page's type ("Result"); nullptr in the wasm (RECORD_NAME)
    std::span<const Column> columns;
    // A column that must be truthy for the record to be there: absent, the page gets null and the JSON each column's
    // absence (null, or nothing with kOmitIfAbsent).
    std::uint8_t presentIf = kAlways;
    // Its errors: where not empty, the JSON holds only the kKeepOnError columns and these (a refused record says
    // what it is and why, and nothing else).
    std::uint8_t errorsColumn = kAlways;
    const char* doc = nullptr;  // nullptr in the wasm (RECORD_DOC)
};

// 10^digits, exactly, for the rounding digits a column names.
inline constexpr double kPowersOfTen[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

// Whether a column's value counts as there: a positive number, true, a choice other than its first id, a non-empty
// text or list, a child.
bool truthy(const Column& column, const Cell& cell);
// Whether `record` of `table` is there (its presentIf column), and whether its column `index` is written.
bool recordPresent(const RecordTable& table, const void* record);
bool columnPresent(const RecordTable& table, std::size_t index, const void* record);
// The index of a table's column by its page key, or kAlways.
std::uint8_t columnIndex(const RecordTable& table, std::string_view page);

// Building a table: a member's column, its kind from its type.
namespace record {

template <class M>
struct MemberOf;
template <class T, class V>
struct MemberOf<V T::*> {
    using Record = T;
    using Value = V;
};

template <class V>
struct IsVector : std::false_type {};
template <class V>
struct IsVector<std::vector<V>> : std::true_type {
    using Item = V;
};
template <class V>
struct IsOptional : std::false_type {};
template <class V>
struct IsOptional<std::optional<V>> : std::true_type {
    using Item = V;
};
template <class V>
concept Choice = requires {
    ChoiceNames<V>::names;
};

template <class T>
const T& as(const void* record) {
    return *static_cast<const T*>(record);
}

template <class V>
constexpr CellKind kindOf() {
    if constexpr (IsOptional<V>::value)
        return kindOf<typename IsOptional<V>::Item>();
    else if constexpr (std::is_same_v<V, double> || (std::is_integral_v<V> && !std::is_same_v<V, bool>))
        return CellKind::number;
    else if constexpr (std::is_same_v<V, bool>)
        return CellKind::flag;
    else if constexpr (std::is_same_v<V, std::string> || std::is_same_v<V, std::string_view>)
        return CellKind::text;
    else if constexpr (Choice<V>)
        return CellKind::choice;
    else if constexpr (std::is_same_v<V, std::vector<double>> || std::is_same_v<V, std::span<const double>>)
        return CellKind::numbers;
    else if constexpr (std::is_same_v<V, std::vector<std::string>> || std::is_same_v<V, std::vector<std::string_view>>)
        return CellKind::texts;
    else if constexpr (IsVector<V>::value)
        return CellKind::records;
    else
        return CellKind::record;
}

template <class V>
void readValue(const V& v, Cell& c) {
    if constexpr (IsOptional<V>::value) {
        if (v)
            readValue(*v, c);
        else
            c.none = true;
    } else if constexpr (std::is_same_v<V, double> || (std::is_integral_v<V> && !std::is_same_v<V, bool>)) {
        c.number = static_cast<double>(v);
    } else if constexpr (std::is_same_v<V, bool>) {
        c.number = v ? 1 : 0;
    } else if constexpr (std::is_same_v<V, std::string> || std::is_same_v<V, std::string_view>) {
        c.text = v;
    } else if constexpr (Choice<V>) {
        c.number = static_cast<double>(static_cast<std::size_t>(v));
    } else if constexpr (std::is_same_v<V, std::vector<double>> || std::is_same_v<V, std::span<const double>>) {
        c.numbers = v;
    } else if constexpr (std::is_same_v<V, std::vector<std::string>> || std::is_same_v<V, std::vector<std::string_view>>) {
        c.texts.assign(v.begin(), v.end());
    } else if constexpr (IsVector<V>::value) {
        c.child = v.data();
        c.count = v.size();
        c.stride = sizeof(typename IsVector<V>::Item);
    } else {
        c.child = &v;
    }
}

template <auto Member>
void readMember(const void* record, Cell& out) {
    readValue(as<typename MemberOf<decltype(Member)>::Record>(record).*Member, out);
}

// What a column adds to its key and member: JSON rounding, flags, its child's table, its condition, its text.
struct Options {
    std::uint8_t round = kExact;
    std::uint8_t scale = 0;
    std::uint16_t flags = 0;
    const RecordTable* child = nullptr;
    std::uint8_t presentIf = kAlways;
    std::optional<CellKind> kind;  // a double JSON writes as a fraction; else the member's type says
    const char* none = nullptr;
    const char* doc = nullptr;
};

template <class V>
constexpr std::span<const std::string_view> choiceIds() {
    if constexpr (IsOptional<V>::value)
        return choiceIds<typename IsOptional<V>::Item>();
    else if constexpr (Choice<V>)
        return ChoiceNames<V>::names;
    else
        return {};
}

constexpr Column make(const char* page, const char* json, CellKind kind, void (*read)(const void*, Cell&), const Options& o,
                      std::span<const std::string_view> choices, std::uint16_t flags) {
    Column column{page, read, o.child, choices, o.none};
#ifndef MEMBUDGET_RECORD_TEXT_OUTSIDE
    column.json = json;
    column.doc = o.doc;
#else
    (void)json;
#endif
    column.kind = kind;
    column.roundDigits = o.round;
    column.scaleDigits = o.scale;
    column.presentIf = o.presentIf;
    column.flags = static_cast<std::uint16_t>(o.flags | flags);
    return column;
}

// A member's column: `member<&Line::bytes>("bytes", RECORD_JSON("bytes"))`.
template <auto Member>
constexpr Column member(const char* page, const char* json, const Options& o = {}) {
    using V = typename MemberOf<decltype(Member)>::Value;
    const CellKind kind = o.kind.value_or(kindOf<V>());
    return make(page, json, kind, &readMember<Member>, o, choiceIds<V>(), IsOptional<V>::value ? kOptional : 0);
}

// A computed column: `read` fills the cell from the record.
constexpr Column computed(const char* page, const char* json, CellKind kind, void (*read)(const void*, Cell&), const Options& o = {},
                          std::span<const std::string_view> choices = {}) {
    return make(page, json, kind, read, o, choices, 0);
}

// The index of the column whose page key is `page`: what a table's presentIf and errorsColumn name, checked where the
// table is defined (static_assert(at(kColumns, "runs") == kBandRuns)).
constexpr std::uint8_t at(std::span<const Column> columns, std::string_view page) {
    for (std::size_t i = 0; i < columns.size() && i < kAlways; ++i)
        if (std::string_view(columns[i].page) == page) return static_cast<std::uint8_t>(i);
    return kAlways;
}

// Reads a record as itself: a group of its columns that the JSON nests under `json` (or the page under `page`).
template <class T>
void readSelf(const void* record, Cell& out) {
    out.child = record;
}

}  // namespace record

}  // namespace membudget
