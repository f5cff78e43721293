// The CLI's side of `membudget import`: the text parsed by a maintained parser (nlohmann/json, toml++,
// yaml-cpp) or, for scripts and commands, by the small shell tokenizer below, into the ImportInput the engine
// maps (membudget/formats/import.hpp). The page does the same with JSON.parse, smol-toml, yaml and shell-quote
// (web/src/import-parse.ts); tests/wasm/import.test.ts checks that both give the same result for every fixture.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/formats/import.hpp"

namespace membudget::cli {

// Words of each logical line of a shell script, as the engine reads them:
//  - a backslash before a newline joins the lines; the text is then read line by line;
//  - blanks separate words; '…' is literal; in "…" a backslash escapes " \ $ and `; elsewhere a backslash
//    escapes the next character;
//  - '#' at the start of a word comments out the rest of the line;
//  - | & ; < > ( ) end a word and are dropped (redirections, pipes, bash arrays' parentheses);
//  - $NAME is written ${NAME} (as shell-quote hands variables to the page), ${…} and $(…) are kept as written,
//    for the engine to resolve from the script's literal assignments.
std::vector<std::vector<std::string>> shellWords(std::string_view text);

// A here-document: the file its line writes (cat > FILE <<EOF, cat <<EOF > FILE, … | tee FILE; $NAME as ${NAME}; "" where
// the line names none) and its body, the lines up to its delimiter (leading tabs stripped for <<-).
struct HereDocument {
    std::string file;
    std::string body;
};
// The same words, and the script's here-documents in order (ImportSyntax::words_yaml: TensorRT-LLM's extra options).
std::vector<std::vector<std::string>> shellWords(std::string_view text, std::vector<HereDocument>& docs);

// The text as `format` (importSyntax decides the parser). Values are bounded: more than kMaxImportValues
// values or a nesting deeper than 32 levels is refused (YAML aliases cannot multiply a small file).
inline constexpr size_t kMaxImportValues = 200000;
ImportInput parseImport(std::string_view text, ImportFormat format);

}  // namespace membudget::cli
