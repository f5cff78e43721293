// What the import tests share: a text imported as the CLI imports it, a file's text, and what an import assigned.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "import_parse.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/model/assignments.hpp"

namespace membudget::test {

// A file's bytes as text.
inline std::string readFile(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// A text through the CLI's parser and the engine's importer, in its detected format unless one is given.
inline ImportResult importText(const std::string& text, std::optional<ImportFormat> format = std::nullopt) {
    if (!format) format = detectImportFormat(text);
    REQUIRE(format.has_value());
    return importConfig(cli::parseImport(text, *format));
}

// The text an import assigned to a key, or "(not set)".
inline std::string assignedText(const ImportResult& r, std::string_view key) {
    const auto a = std::find_if(r.assignments.begin(), r.assignments.end(), [key](const Assignment& x) { return x.key == key; });
    return a == r.assignments.end() ? std::string("(not set)") : a->text;
}

}  // namespace membudget::test
