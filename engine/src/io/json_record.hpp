// The JSON walker of record tables (membudget/base/record.hpp): a record's columns as the CLI writes them.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "membudget/base/record.hpp"

namespace membudget::detail {

// The record's columns into `out`, in the table's order: rounded, null or left out as each column says, children
// nested (or spliced where their key is "").
// `context`: what the record alone cannot say (Cell::context), e.g. the base configuration of a plan's rows.
void writeRecord(nlohmann::ordered_json& out, const void* record, const RecordTable& table, const void* context = nullptr);

// The record as a JSON object.
nlohmann::ordered_json recordJson(const void* record, const RecordTable& table, const void* context = nullptr);

template <class T>
nlohmann::ordered_json recordJson(const T& record, const RecordTable& table, const void* context = nullptr) {
    return recordJson(static_cast<const void*>(&record), table, context);
}

// A list of records as a JSON array.
template <class T>
nlohmann::ordered_json recordsJson(std::span<const T> records, const RecordTable& table, const void* context = nullptr) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const T& item : records) out.push_back(recordJson(static_cast<const void*>(&item), table, context));
    return out;
}

template <class T>
nlohmann::ordered_json recordsJson(const std::vector<T>& records, const RecordTable& table, const void* context = nullptr) {
    return recordsJson(std::span<const T>(records), table, context);
}

// The configuration as JSON: every field of the table, in canonical order.
nlohmann::ordered_json configJson(const Config& config);

}  // namespace membudget::detail
