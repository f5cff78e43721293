#include <toml++/toml.h>
#include <yaml-cpp/yaml.h>
#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "import_parse.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/io/json.hpp"

namespace membudget::cli {

namespace {

bool isOperator(char c) { return c == '|' || c == '&' || c == ';' || c == '<' || c == '>' || c == '(' || c == ')'; }
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A code point as UTF-8 (what the page's string becomes when it crosses to the engine).
void appendCodePoint(std::string& out, unsigned long cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// The body of bash's ANSI-C quoting, $'…', from just after its opening quote: its escapes expanded as bash (and the
// page's shell-quote) expand them (\n, \t, \a, \b, \e, \E, \f, \r, \v, \\, \', \", \?, \ooo, \xHH, \uHHHH,
// \UHHHHHHHH, \cX; any other backslash kept), up to its closing quote; a NUL ends the string. `i` ends on the
// closing quote (or the line's end).
std::string ansiCQuoted(std::string_view line, size_t& i) {
    std::string out;
    bool ended = false;  // past a NUL: the rest of the body is dropped
    auto put = [&](unsigned long cp) {
        if (cp == 0) ended = true;
        if (!ended) appendCodePoint(out, cp);
    };
    auto digitsOf = [&](size_t from, size_t most, int base) {
        size_t n = 0;
        while (n < most && from + n < line.size()) {
            const char c = line[from + n];
            const bool ok = base == 8 ? (c >= '0' && c <= '7') : std::isxdigit(static_cast<unsigned char>(c)) != 0;
            if (!ok) break;
            ++n;
        }
        return n;
    };
    for (; i < line.size() && line[i] != '\''; ++i) {
        if (line[i] != '\\' || i + 1 >= line.size()) {
            if (!ended) out += line[i];
            continue;
        }
        const char k = line[i + 1];
        static constexpr std::string_view kLetters = "abeEfnrtv", kChars = "\x07\b\x1B\x1B\f\n\r\t\v";
        if (const size_t letter = kLetters.find(k); letter != std::string_view::npos) {
            put(static_cast<unsigned char>(kChars[letter]));
            ++i;
        } else if (k == '\\' || k == '\'' || k == '"' || k == '?') {
            put(static_cast<unsigned char>(k));
            ++i;
        } else if (k >= '0' && k <= '7') {
            const size_t n = digitsOf(i + 1, 3, 8);
            put(std::stoul(std::string(line.substr(i + 1, n)), nullptr, 8) & 0xFF);
            i += n;
        } else if ((k == 'x' || k == 'u' || k == 'U') && digitsOf(i + 2, k == 'x' ? 2 : k == 'u' ? 4 : 8, 16) > 0) {
            const size_t n = digitsOf(i + 2, k == 'x' ? 2 : k == 'u' ? 4 : 8, 16);
            const unsigned long cp = std::stoul(std::string(line.substr(i + 2, n)), nullptr, 16);
            if (cp > 0x10FFFF) {
                if (!ended) out += line.substr(i, n + 2);
            } else {
                put(cp);
            }
            i += n + 1;
        } else if (k == 'c' && i + 2 < line.size()) {
            const bool escaped = line[i + 2] == '\\' && i + 3 < line.size() && line[i + 3] == '\\';
            put(line[i + 2] == '?' ? 0x7F : static_cast<unsigned char>(line[i + 2]) & 0x1F);
            i += escaped ? 3 : 2;
        } else {
            if (!ended) out += '\\';
        }
    }
    return out;
}

std::vector<std::string> lineWords(std::string_view line) {
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    auto end = [&] {
        if (inWord) words.push_back(word);
        word.clear();
        inWord = false;
    };
    // $NAME as ${NAME}; ${…} and $(…) kept whole.
    auto dollar = [&](size_t& i) {
        if (i + 1 < line.size() && (line[i + 1] == '{' || line[i + 1] == '(')) {
            const char open = line[i + 1], close = open == '{' ? '}' : ')';
            int depth = 0;
            size_t j = i + 1;
            for (; j < line.size(); ++j) {
                if (line[j] == open) ++depth;
                if (line[j] == close && --depth == 0) break;
            }
            word.append(line.substr(i, std::min(j, line.size() - 1) - i + 1));
            i = j;
        } else if (i + 1 < line.size() && isNameChar(line[i + 1])) {
            size_t j = i + 1;
            while (j < line.size() && isNameChar(line[j])) ++j;
            word += "${" + std::string(line.substr(i + 1, j - i - 1)) + "}";
            i = j - 1;
        } else {
            word += '$';
        }
        inWord = true;
    };
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '\r') {
            end();
        } else if (c == '#' && !inWord) {
            break;
        } else if (isOperator(c)) {
            end();
        } else if (c == '\'') {
            inWord = true;
            const size_t close = line.find('\'', i + 1);
            word.append(line.substr(i + 1, (close == std::string_view::npos ? line.size() : close) - i - 1));
            i = close == std::string_view::npos ? line.size() : close;
        } else if (c == '"') {
            inWord = true;
            for (++i; i < line.size() && line[i] != '"'; ++i) {
                if (line[i] == '\\' && i + 1 < line.size() && std::string_view("\"\\$`").find(line[i + 1]) != std::string_view::npos)
                    word += line[++i];
                else if (line[i] == '$')
                    dollar(i);
                else
                    word += line[i];
            }
        } else if (c == '\\') {
            inWord = true;
            if (i + 1 < line.size()) word += line[++i];
        } else if (c == '$' && i + 1 < line.size() && line[i + 1] == '\'') {
            inWord = true;
            i += 2;
            word += ansiCQuoted(line, i);
        } else if (c == '$') {
            dollar(i);
        } else {
            word += c;
            inWord = true;
        }
    }
    end();
    return words;
}

struct Flattener {
    ImportInput& out;
    bool tooMany = false;

    size_t bytes = 0;  // the paths' and texts' bytes so far (kMaxFlatBytes, as the JSON reader)
    bool tooLarge = false;

    void push(std::string path, std::string type, std::string text) {
        bytes += path.size() + text.size();
        if (out.values.size() >= kMaxImportValues || bytes > kMaxFlatBytes) {
            tooMany = out.values.size() >= kMaxImportValues;
            tooLarge = !tooMany;
            return;
        }
        out.values.push_back({std::move(path), std::move(type), std::move(text)});
    }

    static std::string child(const std::string& path, std::string_view key) { return detail::childPath(path, key); }

    void toml(const toml::node& node, const std::string& path, int depth) {
        if (tooMany || tooLarge) return;
        if (depth > 32) throw std::runtime_error("nested deeper than 32 levels at " + path);
        if (const auto* table = node.as_table()) {
            if (!path.empty()) push(path, "object", "");
            for (const auto& [key, value] : *table) toml(value, child(path, key.str()), depth + 1);
        } else if (const auto* array = node.as_array()) {
            std::string first;
            if (!array->empty() && array->get(0)->is_string()) first = array->get(0)->as_string()->get();
            push(path, "array", first);
            for (size_t i = 0; i < array->size(); ++i) toml(*array->get(i), path + "[" + std::to_string(i) + "]", depth + 1);
        } else if (const auto* s = node.as_string()) {
            push(path, "string", s->get());
        } else if (const auto* i = node.as_integer()) {
            push(path, "number", std::to_string(i->get()));
        } else if (const auto* f = node.as_floating_point()) {
            push(path, "number", detail::formatNumber(f->get()));
        } else if (const auto* b = node.as_boolean()) {
            push(path, "boolean", b->get() ? "true" : "false");
        } else {
            std::ostringstream text;  // dates and times, as text
            node.visit([&text](const auto& value) { text << value; });
            push(path, "string", text.str());
        }
    }

    // An unquoted scalar goes as written ("plain"): the engine resolves it as torchtune's OmegaConf loader does
    // (formats/omegaconf.hpp), the same for the page's parser. Quoted or explicitly tagged: a string.
    void scalar(const YAML::Node& node, const std::string& path) { push(path, node.Tag() == "?" ? "plain" : "string", node.Scalar()); }

    void yaml(const YAML::Node& node, const std::string& path, int depth) {
        if (tooMany || tooLarge) return;
        if (depth > 32) throw std::runtime_error("nested deeper than 32 levels at " + path);
        switch (node.Type()) {
            case YAML::NodeType::Map: {
                if (!path.empty()) push(path, "object", "");
                // OmegaConf's loader refuses a key given twice in one mapping (construct_mapping: "found duplicate key").
                std::set<std::string> keys;
                for (const auto& item : node)
                    if (item.first.IsScalar() && !keys.insert(item.first.Scalar()).second)
                        throw std::runtime_error("found duplicate key " + item.first.Scalar() + (path.empty() ? "" : " in " + path) +
                                                 " (OmegaConf refuses a key given twice)");
                for (const auto& item : node) yaml(item.second, child(path, item.first.IsScalar() ? item.first.Scalar() : "?"), depth + 1);
                break;
            }
            case YAML::NodeType::Sequence: {
                std::string first;
                if (node.size() > 0 && node[0].IsScalar()) first = node[0].Scalar();
                push(path, "array", first);
                for (size_t i = 0; i < node.size(); ++i) yaml(node[i], path + "[" + std::to_string(i) + "]", depth + 1);
                break;
            }
            case YAML::NodeType::Scalar:
                scalar(node, path);
                break;
            default:
                push(path, "null", "");
                break;
        }
    }
};

// Whether a YAML stream holds a second document: a "---" line at the left margin after the first document's content
// (or after its own "---"), or content after a "..." end marker. Block scalars are indented, and a document marker at
// the margin ends them (YAML 1.2 §9.1.2), so the markers are found line by line.
bool secondYamlDocument(std::string_view text) {
    bool content = false, started = false, ended = false;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t end = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const bool marker3 = line.size() >= 3 && (line.size() == 3 || line[3] == ' ' || line[3] == '\t');
        if (marker3 && line.substr(0, 3) == "---") {
            if (content || started || ended) return true;
            started = true;
            content = line.find_first_not_of(" \t", 3) != std::string_view::npos && line[line.find_first_not_of(" \t", 3)] != '#';
            continue;
        }
        if (marker3 && line.substr(0, 3) == "...") {
            ended = true;
            continue;
        }
        const size_t first = line.find_first_not_of(" \t");
        if (first == std::string_view::npos || line[first] == '#' || (line[0] == '%' && !content)) continue;
        if (ended) return true;
        content = true;
    }
    return false;
}

std::string yamlRootType(const YAML::Node& root) {
    switch (root.Type()) {
        case YAML::NodeType::Map:
            return "object";
        case YAML::NodeType::Sequence:
            return "array";
        case YAML::NodeType::Scalar:
            return "string";
        default:
            return "null";
    }
}

// The positions of a line's characters that bash reads as syntax: outside single and double quotes, not escaped by a
// backslash, and before a comment (a # at the start of a word). hereDocs and redirectTarget look for << and > there.
// web/src/import-parse.ts unquotedPositions is the page's twin.
std::vector<size_t> unquotedPositions(std::string_view line) {
    std::vector<size_t> out;
    char quote = 0;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '\\') {
            ++i;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
            break;
        } else {
            out.push_back(i);
        }
    }
    return out;
}

// The delimiters of the here-documents a line opens, outside quotes (<<WORD, <<-WORD, <<'WORD', <<"WORD"; not a
// <<< here-string), each with whether its body's leading tabs are stripped (<<-). Bash reads the lines that follow,
// up to each delimiter in turn, as that command's input: text, not commands or flags. web/src/import-parse.ts
// hereDocs is the page's twin.
std::vector<std::pair<std::string, bool>> hereDocs(std::string_view line) {
    std::vector<std::pair<std::string, bool>> out;
    size_t next = 0;  // where the last operator's word ended
    for (const size_t i : unquotedPositions(line)) {
        if (i < next || line[i] != '<' || i + 1 >= line.size() || line[i + 1] != '<') continue;
        if (i + 2 < line.size() && line[i + 2] == '<') {  // a here-string: its word is on this line
            next = i + 3;
            continue;
        }
        size_t j = i + 2;
        const bool dash = j < line.size() && line[j] == '-';
        if (dash) ++j;
        while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
        std::string word;
        if (j < line.size() && (line[j] == '\'' || line[j] == '"')) {
            const char q = line[j];
            const size_t close = line.find(q, j + 1);
            word = std::string(line.substr(j + 1, (close == std::string_view::npos ? line.size() : close) - j - 1));
            j = close == std::string_view::npos ? line.size() : close + 1;
        } else {
            while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' && !isOperator(line[j])) word += line[j++];
        }
        if (!word.empty()) out.emplace_back(std::move(word), dash);
        next = j;
    }
    return out;
}

// The file a line's output goes to: the word after its first `>` or `>>` outside quotes (not a descriptor's `>&`), as
// written ($NAME as ${NAME}), or after `tee`; "" where there is none. A here-document opened on the line is that
// file's text (cat > FILE <<EOF, cat <<EOF > FILE). web/src/import-parse.ts redirectTarget is the page's twin.
std::string redirectTarget(std::string_view line) {
    for (const size_t i : unquotedPositions(line)) {
        const char c = line[i];
        if (c != '>') continue;
        size_t j = i + 1;
        if (j < line.size() && (line[j] == '>' || line[j] == '|')) ++j;
        if (j < line.size() && line[j] == '&') continue;  // 2>&1
        while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
        std::string rest(line.substr(j));
        const std::vector<std::string> words = lineWords(rest);
        return words.empty() ? std::string() : words.front();
    }
    const std::vector<std::string> words = lineWords(line);
    for (size_t i = 0; i + 1 < words.size(); ++i)
        if (words[i] == "tee" || words[i].ends_with("/tee"))
            for (size_t j = i + 1; j < words.size(); ++j)
                if (!words[j].empty() && words[j][0] != '-') return words[j];
    return {};
}

// Words of each logical line, and, where `docs` is given, each here-document's body with the file its line writes.
std::vector<std::vector<std::string>> scanShell(std::string_view text, std::vector<HereDocument>* docs) {
    std::string joined;
    joined.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;
            continue;
        }
        if (text[i] == '\\' && i + 2 < text.size() && text[i + 1] == '\r' && text[i + 2] == '\n') {
            i += 2;
            continue;
        }
        joined += text[i];
    }
    std::vector<std::vector<std::string>> lines;
    std::vector<std::pair<std::string, bool>> pending;  // here-documents whose bodies come next, in order
    std::vector<size_t> pendingDocs;                    // each one's entry in `docs`
    size_t start = 0;
    while (start <= joined.size()) {
        size_t end = joined.find('\n', start);
        if (end == std::string::npos) end = joined.size();
        std::string_view line = std::string_view(joined).substr(start, end - start);
        start = end + 1;
        if (!pending.empty()) {  // a here-document's body: skipped up to its delimiter line
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (pending.front().second)
                while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
            if (line == pending.front().first) {
                pending.erase(pending.begin());
                pendingDocs.erase(pendingDocs.begin());
            } else if (docs) {
                (*docs)[pendingDocs.front()].body.append(line).append("\n");
            }
            continue;
        }
        for (auto& doc : hereDocs(line)) {
            pending.push_back(std::move(doc));
            pendingDocs.push_back(docs ? docs->size() : 0);
            if (docs) docs->push_back({redirectTarget(line), ""});
        }
        auto words = lineWords(line);
        if (!words.empty()) lines.push_back(std::move(words));
    }
    return lines;
}

}  // namespace

std::vector<std::vector<std::string>> shellWords(std::string_view text) { return scanShell(text, nullptr); }

std::vector<std::vector<std::string>> shellWords(std::string_view text, std::vector<HereDocument>& docs) { return scanShell(text, &docs); }

namespace {

// A script's words and its here-documents (ImportSyntax::words_yaml), each as heredocs[i].file, the file its line
// writes, and heredocs[i].yaml, its body flattened as a YAML file is (none where the body does not parse as one YAML
// document or holds a key twice). web/src/import-parse.ts hands over the same.
void readScript(std::string_view text, ImportInput& in) {
    std::vector<HereDocument> docs;
    in.lines = shellWords(text, docs);
    if (!docs.empty()) in.values.push_back({"heredocs", "array", ""});
    size_t bytes = 0;
    for (size_t i = 0; i < docs.size(); ++i) {
        const std::string path = "heredocs[" + std::to_string(i) + "]";
        in.values.push_back({path, "object", ""});
        in.values.push_back({path + ".file", "string", docs[i].file});
        ImportInput doc;
        try {
            if (secondYamlDocument(docs[i].body)) continue;
            const YAML::Node root = YAML::Load(docs[i].body);
            Flattener f{doc};
            f.yaml(root, path + ".yaml", 1);
            if (f.tooMany || f.tooLarge) doc.error = "over";
        } catch (const std::exception&) {
            continue;
        }
        for (const auto& v : doc.values) bytes += v.key.size() + v.text.size();
        if (!doc.error.empty() || in.values.size() + doc.values.size() > kMaxImportValues || bytes > kMaxFlatBytes) {
            in.error = "its here-documents pass " + std::to_string(kMaxImportValues) + " values or " + std::to_string(kMaxFlatBytes >> 20) +
                       " MiB once flattened";
            break;
        }
        in.values.insert(in.values.end(), doc.values.begin(), doc.values.end());
    }
}

}  // namespace

ImportInput parseImport(std::string_view text, ImportFormat format) {
    ImportInput in;
    in.format = format;
    switch (importSyntax(format, text)) {
        case ImportSyntax::words:
            in.lines = shellWords(text);
            break;
        case ImportSyntax::words_yaml:
            readScript(text, in);
            break;
        case ImportSyntax::json: {
            FlatJson flat = flattenJson(text);
            in.rootType = flat.rootType;
            in.error = flat.error;
            in.values = std::move(flat.values);
            break;
        }
        case ImportSyntax::toml: {
            try {
                const toml::table root = toml::parse(text);
                Flattener f{in};
                f.toml(root, "", 0);
                if (f.tooMany) in.error = "more than " + std::to_string(kMaxImportValues) + " values";
                if (f.tooLarge) in.error = "its keys' paths and values pass " + std::to_string(kMaxFlatBytes >> 20) + " MiB once flattened";
            } catch (const toml::parse_error& e) {
                in.error = "line " + std::to_string(e.source().begin.line) + ", column " + std::to_string(e.source().begin.column) + ": " +
                           std::string(e.description());
            } catch (const std::exception& e) {
                in.error = e.what();
            }
            break;
        }
        case ImportSyntax::yaml: {
            try {
                // PyYAML's yaml.load, which OmegaConf.load calls, takes one document and refuses a second. (Not
                // YAML::LoadAll: yaml-cpp 0.7's loops forever on some malformed flow mappings after the first document.)
                if (secondYamlDocument(text))
                    throw std::runtime_error("expected a single document in the stream, but found another document");
                const YAML::Node root = YAML::Load(std::string(text));
                in.rootType = yamlRootType(root);
                Flattener f{in};
                if (root.IsMap()) f.yaml(root, "", 0);
                if (f.tooMany) in.error = "more than " + std::to_string(kMaxImportValues) + " values";
                if (f.tooLarge) in.error = "its keys' paths and values pass " + std::to_string(kMaxFlatBytes >> 20) + " MiB once flattened";
            } catch (const YAML::Exception& e) {
                in.error = "line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg;
            } catch (const std::exception& e) {
                in.error = e.what();
            }
            break;
        }
    }
    if (!in.error.empty()) in.rootType = "invalid";
    return in;
}

}  // namespace membudget::cli
