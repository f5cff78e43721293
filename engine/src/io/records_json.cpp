// `membudget records`: every record table that leaves the engine, the choices' ids and the configuration's key types,
// as JSON, from which scripts/record-types.mjs writes the page's types (web/src/generated/records.ts) and the tables its
// JSON download walks (web/src/generated/record-tables.ts). Nothing here is restated: each entry is read from a table.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/json_parts.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/record.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/evaluate/field_states.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/io/json_write.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/plan/serving_plan.hpp"

namespace membudget {

namespace {

using nlohmann::ordered_json;

struct ChoiceType {
    std::string_view name;
    std::span<const std::string_view> ids;
};

template <class E>
constexpr ChoiceType choice(std::string_view name) {
    return {name, ChoiceNames<E>::names};
}

// Every choice that crosses the boundary, with its TypeScript name (tests/wasm/dts.test.ts checks the list against
// every ChoiceNames of membudget/base/choices.hpp).
constexpr ChoiceType kChoices[] = {
    choice<Norm>("Norm"),
    choice<QkNorm>("QkNorm"),
    choice<ExpertWeights>("ExpertWeights"),
    choice<Checkpointing>("Checkpointing"),
    choice<ImportFormat>("ImportFormat"),
    choice<ImportSyntax>("ImportSyntax"),
    choice<Framework>("Framework"),
    choice<Fp8Recipe>("Fp8Recipe"),
    choice<MoeDispatcher>("MoeDispatcher"),
    choice<Finetune>("Finetune"),
    choice<LoraDtype>("LoraDtype"),
    choice<OptimizerDtype>("OptimizerDtype"),
    choice<ActFormula>("ActFormula"),
    choice<Attention>("Attention"),
    choice<SplitAccounts>("SplitAccounts"),
    choice<Optimizer>("Optimizer"),
    choice<Precision>("Precision"),
    choice<Offload>("Offload"),
    choice<Mode>("Mode"),
    choice<WeightDtype>("WeightDtype"),
    choice<StateDtype>("StateDtype"),
    choice<KvDtype>("KvDtype"),
    choice<Method>("Method"),
    choice<Verdict>("Verdict"),
    choice<StepPhase>("StepPhase"),
    choice<LineId>("LineId"),
    choice<FieldKind>("FieldKind"),
};

// The records the page receives (each function of the modules returns one, or a list of them) or hands over (a plan's
// request, a JSON document's values), and those only the CLI writes.
struct Root {
    const RecordTable* table;
    bool page;
};
const Root kRoots[] = {
    {&kResultRecord, true},         {&kMethodColumnRecord, true},  {&kAdviceRecord, true},
    {&kAppliedImportRecord, true},  {&kExportResultRecord, true},  {&kHfImportRecord, true},
    {&kParsedConfigRecord, true},   {&kFieldRecord, true},         {&kFieldStatesRecord, true},
    {&kModelPresetRecord, true},    {&kGpuPresetRecord, true},     {&kFormatInfoRecord, true},
    {&kMeasuredReadRecord, true},   {&kProblemRecord, true},       {&kServingPlanRecord, true},
    {&kGpuServingPlanRecord, true}, {&kPlanRequestRecord, true},   {&kServingPlanRequestRecord, true},
    {&kJsonValueRecord, true},      {&kImportResultRecord, false}, {&kMeasuredComparisonRecord, false},
};

std::string_view choiceName(std::span<const std::string_view> ids) {
    for (const ChoiceType& c : kChoices)
        if (c.ids.data() == ids.data()) return c.name;
    return {};
}

ordered_json text(const char* value) { return value ? ordered_json(value) : ordered_json(nullptr); }

ordered_json columnIndexKey(const RecordTable& table, std::uint8_t index) {
    return index == kAlways ? ordered_json(nullptr) : ordered_json(table.columns[index].page);
}

constexpr std::string_view kKindNames[] = {"number", "fraction", "flag",  "text",   "choice", "texts",   "numbers",
                                           "record", "records",  "parts", "byLine", "config", "settings"};

ordered_json flags(const Column& column) {
    static constexpr std::pair<ColumnFlag, const char*> kNames[] = {
        {kPageOnly, "pageOnly"},         {kJsonOnly, "jsonOnly"},       {kNullIfFalsy, "nullIfFalsy"},
        {kOmitIfAbsent, "omitIfAbsent"}, {kKeepOnError, "keepOnError"}, {kPresentIfNot, "presentIfNot"},
        {kOptional, "optional"},         {kFieldKey, "fieldKey"},       {kByKey, "byKey"},
    };
    ordered_json out = ordered_json::array();
    for (const auto& [flag, name] : kNames)
        if (column.flags & flag) out.push_back(name);
    return out;
}

ordered_json tableJson(const RecordTable& table, bool page) {
    ordered_json columns = ordered_json::array();
    for (const Column& c : table.columns)
        columns.push_back({{"page", c.page},
                           {"json", text(c.json)},
                           {"kind", kKindNames[static_cast<std::size_t>(c.kind)]},
                           {"round", c.roundDigits == kExact ? ordered_json(nullptr) : ordered_json(c.roundDigits)},
                           {"scale", c.scaleDigits},
                           {"flags", flags(c)},
                           {"presentIf", columnIndexKey(table, c.presentIf)},
                           {"child", c.child ? ordered_json(c.child->name) : ordered_json(nullptr)},
                           {"choice", c.kind == CellKind::choice ? ordered_json(choiceName(c.choices)) : ordered_json(nullptr)},
                           {"none", text(c.none)},
                           {"doc", text(c.doc)}});
    return {{"name", table.name},
            {"page", page},
            {"doc", text(table.doc)},
            {"presentIf", columnIndexKey(table, table.presentIf)},
            {"errors", columnIndexKey(table, table.errorsColumn)},
            {"columns", std::move(columns)}};
}

// Each table once, children after their parents, on the page where any root that reaches it is.
void collect(const RecordTable& table, bool page, std::vector<std::pair<const RecordTable*, bool>>& out) {
    for (auto& [seen, onPage] : out)
        if (seen == &table) {
            if (page && !onPage) {
                onPage = true;
                for (const Column& c : table.columns)
                    if (c.child) collect(*c.child, true, out);
            }
            return;
        }
    out.emplace_back(&table, page);
    for (const Column& c : table.columns)
        if (c.child) collect(*c.child, page, out);
}

ordered_json configJson() {
    ordered_json out = ordered_json::array();
    for (const FieldSpec& field : fields()) {
        std::string type = field.kind == FieldKind::boolean ? "boolean" : field.kind == FieldKind::text ? "string" : "number";
        if (field.kind == FieldKind::choice) {
            const auto* member = std::get_if<ChoiceField>(&field.member);
            const std::string_view name = member ? choiceName(member->names) : std::string_view();
            type = name.empty() ? "string" : std::string(name);
        }
        out.push_back({{"key", field.key}, {"type", type}});
    }
    return out;
}

// A plan row's columns (engine/src/plan/plan_row.cpp), which cross as numbers and the page decodes by name.
ordered_json planRowJson() {
    ordered_json out = ordered_json::array();
    for (const PlanColumn& column : planColumns()) {
        const std::string_view type = column.kind == PlanColumnKind::boolean  ? "boolean"
                                      : column.kind == PlanColumnKind::choice ? choiceName(column.choices)
                                                                              : "number";
        out.push_back({{"page", column.pageKey}, {"type", type}});
    }
    return out;
}

}  // namespace

std::string recordTablesToJson(int indent) {
    ordered_json choices = ordered_json::object();
    for (const ChoiceType& c : kChoices) choices[std::string(c.name)] = std::vector<std::string>(c.ids.begin(), c.ids.end());
    std::vector<std::pair<const RecordTable*, bool>> tables;
    for (const Root& root : kRoots) collect(*root.table, root.page, tables);
    ordered_json records = ordered_json::array();
    for (const auto& [table, page] : tables) records.push_back(tableJson(*table, page));
    return detail::shortestNumbers(
        ordered_json{{"choices", std::move(choices)}, {"config", configJson()}, {"planRow", planRowJson()}, {"records", std::move(records)}}
            .dump(indent, ' ', false, ordered_json::error_handler_t::replace));
}

}  // namespace membudget
