// Writing JSON with nlohmann/json (json_write.hpp): configurations, results, comparisons, plans, advice, imports,
// exports, measured comparisons, the field table and the presets. Reading is json.cpp's.
#include "membudget/io/json_write.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/json_parts.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/base/units.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/time/steptime.hpp"

namespace membudget {

// A choice written to JSON is its id: without this nlohmann/json would write the enumerator's number.
template <class E>
requires requires { ChoiceNames<E>::names; }
void to_json(nlohmann::ordered_json& out, E value) { out = std::string(toString(value)); }

namespace {

using nlohmann::ordered_json;

using detail::number;

// A choice as its id (an enum would otherwise become its integer).
template <class E>
ordered_json choice(const E& value) {
    return std::string(toString(value));
}

ordered_json optionalNumber(const std::optional<double>& value) { return value ? number(*value) : ordered_json(nullptr); }

ordered_json problems(const std::vector<Problem>& list) { return detail::problemsJson(list); }

ordered_json linesArray(const std::vector<Line>& lines) {
    ordered_json out = ordered_json::array();
    for (const auto& line : lines)
        out.push_back({{"id", line.id},
                       {"label", line.label},
                       {"formula", line.formula},
                       {"substituted", line.substituted},
                       {"bytes", number(line.bytes)},
                       {"note", line.note},
                       {"origin", line.origin ? std::string(toString(*line.origin)) : std::string("allowance")}});
    return out;
}

ordered_json configObject(const Config& config) {
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

}  // namespace

std::string configToJson(const Config& config, int indent) {
    return configObject(config).dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string resultToJson(const Result& result, const Config& config, int indent) {
    ordered_json out;
    out["method"] = choice(result.method);
    if (!result.ok()) {
        out["errors"] = problems(result.errors);
        out["config"] = configObject(config);
        return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
    }
    out["parameter_count"] = number(result.parameterCount);
    out["active_parameter_count"] = number(result.activeParameterCount);
    out["lines"] = linesArray(result.lines);
    out["total_bytes"] = number(result.totalBytes);
    // What the caching allocator reserves (torch.cuda.max_memory_reserved); null where the method does not model it.
    out["reserved_bytes"] = result.reservedBytes > 0 ? number(result.reservedBytes) : ordered_json(nullptr);
    out["capacity_bytes"] = number(result.capacityBytes);
    out["usable_bytes"] = number(result.usableBytes);
    out["verdict"] = choice(result.verdict);
    const ErrorBand& band = result.errorBand;
    // low and high only where runs give them (a band, or the nearest family's); already to the millionth, as the
    // generated table holds them.
    ordered_json bandJson = {{"validated", band.validated}};
    if (band.runs > 0) {
        bandJson["low"] = number(band.lowError);
        bandJson["high"] = number(band.highError);
    }
    bandJson["runs"] = number(band.runs);
    bandJson["framework"] = std::string(band.family.framework);
    bandJson["features"] = featureNames(band.family.features);
    bandJson["text"] = band.text;
    out["error_band"] = std::move(bandJson);
    out["peak_stage"] = number(result.peakStage);
    if (config.mode == Mode::training) {
        // The step-time estimate (docs/planner.md, "Step time"); null where the GPU's speed is not known. Rounded to
        // a microsecond (the parts in ms), so that the page's JSON.stringify writes the same digits.
        const StepTime& st = result.stepTime;
        // Divided by the (exact) number of units per one, so that 0.123457 prints as such, not as 0.12345699999999999.
        auto rounded = [](double value, double perOne) { return number(std::round(value * perOne) / perOne); };
        out["step_time_s"] = st.estimated ? rounded(st.stepSeconds, 1e6) : ordered_json(nullptr);
        out["tokens_per_second_per_gpu"] = st.estimated ? rounded(st.tokensPerSecondPerGpu, 1e3) : ordered_json(nullptr);
        out["mfu"] = st.estimated ? rounded(st.mfu, 1e6) : ordered_json(nullptr);
        if (st.estimated) {
            ordered_json parts = ordered_json::object();
            for (const StepPartText& text : stepPartTexts())
                parts[std::string(text.id)] = rounded(st.partSeconds[static_cast<size_t>(text.part)] * 1e3, 1e3);
            out["step_time"] = {{"parts_ms", std::move(parts)},
                                {"bubble_fraction", rounded(st.bubbleFraction, 1e6)},
                                {"model_flops_per_token", number(st.modelFlopsPerToken)},
                                {"tokens_per_step", number(st.tokensPerStep)},
                                {"assumptions", std::string(stepTimeAssumptions())}};
        }
        // The run on train_tokens (null where not set): whole optimizer steps at the estimated step time.
        if (st.estimated && st.runSteps > 0)
            out["run"] = {{"train_tokens", number(config.trainTokens)},
                          {"optimizer_steps", number(st.runSteps)},
                          {"wall_clock_days", rounded(st.runSeconds / 86400, 1e6)},
                          {"gpu_hours", rounded(st.runGpuHours, 1e3)},
                          {"cost_usd", config.gpuHourUsd > 0 ? rounded(st.runCostUsd, 1e2) : ordered_json(nullptr)}};
        else
            out["run"] = nullptr;
    }
    if (config.mode == Mode::inference) detail::writeServing(out, config, result.servingTime);
    ordered_json stages = ordered_json::array();
    for (const auto& stage : result.stages) {
        ordered_json bytes = ordered_json::object();
        for (size_t i = 0; i < stage.lineBytes.size() && i < result.lines.size(); ++i)
            bytes[std::string(toString(result.lines[i].id))] = number(stage.lineBytes[i]);
        stages.push_back({{"stage", number(stage.index)},
                          {"layers", number(stage.layers)},
                          {"in_flight_microbatches", number(stage.inFlightMicrobatches)},
                          {"total_bytes", number(stage.totalBytes)},
                          {"reserved_bytes", stage.reservedBytes > 0 ? number(stage.reservedBytes) : ordered_json(nullptr)},
                          {"parameters_per_gpu", number(stage.parametersPerGpu)},
                          {"model_parameters", number(stage.modelParameters)},
                          {"lines", std::move(bytes)}});
    }
    out["stages"] = std::move(stages);
    ordered_json phases = ordered_json::array();
    for (const auto& phase : result.phases) phases.push_back({{"name", choice(phase.name)}, {"total_bytes", number(phase.totalBytes)}});
    out["phases"] = std::move(phases);
    out["peak_phase"] = choice(result.peakPhase);
    ordered_json tensors = ordered_json::array();
    for (const auto& t : result.tensors)
        tensors.push_back({{"name", t.name},
                           {"shape", t.shape},
                           {"dtype", t.dtype},
                           {"bytes_per_copy", number(t.bytesPerCopy)},
                           {"copies", number(t.copies)},
                           {"bytes", number(t.bytes)},
                           {"sharding", t.sharding}});
    out["tensors"] = std::move(tensors);
    out["cpu_bytes_per_node"] = number(result.cpuBytesPerNode);
    out["cpu_lines"] = linesArray(result.cpuLines);
    if (config.mode == Mode::inference) {
        out["max_sequences"] = number(result.maxSequences);
        out["max_context_tokens"] = number(result.maxContextTokens);
    }
    out["warnings"] = problems(result.warnings);
    out["errors"] = problems(result.errors);
    out["query"] = encodeQuery(config);
    out["config"] = configObject(config);
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string compareToJson(const std::vector<MethodColumn>& columns, const Config& config, int indent) {
    ordered_json out;
    out["query"] = encodeQuery(config);
    ordered_json methods = ordered_json::array();
    for (const auto& column : columns) {
        ordered_json m{{"method", choice(column.method)}};
        if (!column.result.ok()) {
            m["errors"] = problems(column.result.errors);
        } else {
            m["lines"] = linesArray(column.result.lines);
            m["total_bytes"] = number(column.result.totalBytes);
            m["source_bytes"] = number(column.sourceBytes);
            m["verdict"] = choice(column.result.verdict);
            m["peak_stage"] = number(column.result.peakStage);
            m["warnings"] = problems(column.result.warnings);
        }
        methods.push_back(std::move(m));
    }
    out["methods"] = std::move(methods);
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string fieldsToJson(int indent) {
    const Config defaults;
    ordered_json out = ordered_json::array();
    for (const auto& field : fields()) {
        static constexpr const char* kinds[] = {"integer", "number", "boolean", "choice", "text"};
        ordered_json f{{"key", field.key},
                       {"label", field.label},
                       {"group", field.group},
                       {"kind", kinds[static_cast<int>(field.kind)]},
                       {"default", fieldText(defaults, field)},
                       {"range", describeRange(field)},
                       {"unit", field.unit},
                       {"help", field.help},
                       {"section", field.section},
                       {"applies", appliesText(field.applies)},
                       {"essential", field.essential}};
        if (field.kind == FieldKind::integer || field.kind == FieldKind::number) {
            f["min"] = number(field.min);
            f["max"] = number(field.max);
            f["zero_means_auto"] = field.zeroMeansAuto;
        }
        if (!field.allowed.empty()) f["allowed"] = std::vector<double>(field.allowed.begin(), field.allowed.end());
        if (const auto choices = field.choices(); !choices.empty()) f["choices"] = std::vector<std::string>(choices.begin(), choices.end());
        out.push_back(std::move(f));
    }
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string stepPartsToJson(int indent) {
    ordered_json parts = ordered_json::array();
    for (const StepPartText& text : stepPartTexts())
        parts.push_back({{"id", std::string(text.id)}, {"label", std::string(text.label)}, {"formula", std::string(text.formula)}});
    ordered_json out{{"parts", std::move(parts)}, {"assumptions", std::string(stepTimeAssumptions())}};
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string presetsToJson(int indent) {
    ordered_json models = ordered_json::array();
    for (const auto& preset : modelPresets()) {
        Config config;
        applyModelPreset(config, preset);
        models.push_back({{"id", preset.id},
                          {"label", preset.label},
                          {"family", preset.family},
                          {"parameter_count", number(preset.params != 0 ? preset.params : derivedParameterCount(config))},
                          {"context_window", number(preset.contextWindow)},
                          {"weight_dtype", toString(preset.weightDtype)},
                          {"expert_weight_dtype", toString(preset.expertWeightDtype)},
                          {"source", preset.source}});
    }
    ordered_json gpus = ordered_json::array();
    for (const auto& preset : gpuPresets())
        gpus.push_back({{"id", preset.id},
                        {"label", preset.label},
                        {"capacity_bytes", number(preset.capacityBytes)},
                        {"source", preset.source},
                        {"peak_tflops", number(preset.peakTflops)},
                        {"fp8_tflops", number(preset.fp8Tflops)},
                        {"matmul_efficiency", number(preset.matmulEfficiency)},
                        {"hbm_tbps", number(preset.hbmTbps)},
                        {"nvlink_gbps", number(preset.nvlinkGbps)},
                        {"network_gbps", number(preset.networkGbps)},
                        {"speed_source", preset.speedSource}});
    return ordered_json{{"models", models}, {"gpus", gpus}}.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

namespace {

// A plan row: its columns (planColumns) and the link of the configuration it stands for.
ordered_json planRowJson(const PlanRow& row, const Config& base) {
    ordered_json out = ordered_json::object();
    for (const PlanColumn& column : planColumns()) {
        const double value = column.get(row);
        out[std::string(column.key)] = column.kind == PlanColumnKind::boolean ? ordered_json(value != 0)
                                       : column.kind == PlanColumnKind::choice
                                           ? ordered_json(std::string(column.choices[static_cast<std::size_t>(value)]))
                                       : column.kind == PlanColumnKind::fraction ? ordered_json(value)
                                                                                 : number(value);
    }
    out["query"] = encodeQuery(planRowConfig(base, row));
    return out;
}

}  // namespace

std::string gpuPlansToJson(const std::vector<GpuPlan>& plans, const PlanRequest& request, int indent) {
    ordered_json list = ordered_json::array();
    for (const GpuPlan& gpu : plans) {
        Config base = request.base;
        if (const GpuPreset* preset = findGpuPreset(gpu.gpu)) applyGpuPreset(base, *preset);
        base.gpuHourUsd = 0;  // as planEachGpu plans it: a price is one GPU type's
        const PlanResult& plan = gpu.plan;
        const bool found = plan.recommended.index >= 0;
        list.push_back({{"gpu", gpu.gpu},
                        {"label", gpu.label},
                        {"capacity_bytes", number(gpu.capacityBytes)},
                        {"fitting", number(plan.fitting)},
                        {"recommended",
                         found ? planRowJson(plan.rows[static_cast<std::size_t>(plan.recommended.index)], base) : ordered_json(nullptr)},
                        {"reason", found ? plan.recommended.reason : std::string()},
                        {"errors", problems(plan.errors)}});
    }
    return ordered_json{{"gpus", number(request.gpus)}, {"global_batch", number(request.globalBatch)}, {"which_gpu", std::move(list)}}.dump(
        indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string planToJson(const PlanResult& plan, const PlanRequest& request, int indent) {
    ordered_json rows = ordered_json::array();
    for (const auto& row : plan.rows) rows.push_back(planRowJson(row, request.base));
    return ordered_json{{"gpus", number(request.gpus)},
                        {"global_batch", number(request.globalBatch)},
                        {"layouts", number(plan.layouts)},
                        {"candidates", number(plan.candidates)},
                        {"evaluated", number(plan.evaluated)},
                        {"pruned", number(plan.pruned)},
                        {"fitting", number(plan.fitting)},
                        {"dropped", number(plan.dropped)},
                        {"recommended", plan.recommended.index >= 0
                                            ? ordered_json{{"index", number(plan.recommended.index)}, {"reason", plan.recommended.reason}}
                                            : ordered_json(nullptr)},
                        {"rows", rows},
                        {"errors", problems(plan.errors)}}
        .dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string adviceToJson(const std::vector<Advice>& advice, int indent) {
    ordered_json out = ordered_json::array();
    for (const auto& a : advice)
        out.push_back({{"change", a.change},
                       {"query", a.query},
                       {"total_bytes", number(a.totalBytes)},
                       {"saved_bytes", number(a.savedBytes)},
                       {"verdict", choice(a.verdict)},
                       {"step_time_change", a.stepTimeChange},
                       {"keeps_task", a.keepsTask},
                       {"cost", a.cost}});
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string measuredComparisonToJson(const MeasuredComparison& comparison, int indent) {
    ordered_json out;
    out["format"] = "membudget-compare-measured/1";
    out["method"] = std::string(toString(comparison.result.method));
    out["mode"] = std::string(toString(comparison.config.mode));
    out["parameter_count"] = number(comparison.result.parameterCount);
    out["device"] = comparison.deviceName.empty() ? ordered_json(nullptr) : ordered_json(comparison.deviceName);
    out["source"] = comparison.source.empty() ? ordered_json(nullptr) : ordered_json(comparison.source);
    ordered_json lines = ordered_json::array(), notMeasured = ordered_json::array(), notPredicted = ordered_json::array();
    for (const auto& line : comparison.lines) {
        ordered_json row{{"id", line.id},
                         {"label", line.label},
                         {"predicted_bytes", optionalNumber(line.predictedBytes)},
                         {"measured_bytes", optionalNumber(line.measuredBytes)}};
        if (line.predictedBytes && line.measuredBytes) {
            const double difference = *line.measuredBytes - *line.predictedBytes;
            row["difference_bytes"] = number(difference);
            row["difference_percent"] = optionalNumber(percentOf(difference, *line.predictedBytes));
        } else {
            row["difference_bytes"] = nullptr;
            row["difference_percent"] = nullptr;
        }
        row["allowance"] = line.allowance;
        if (!line.measuredBytes) notMeasured.push_back(line.id);
        if (!line.predictedBytes) notPredicted.push_back(line.id);
        lines.push_back(std::move(row));
    }
    out["lines"] = std::move(lines);
    out["not_measured"] = std::move(notMeasured);
    out["not_predicted"] = std::move(notPredicted);
    out["predicted_total_bytes"] = number(comparison.predictedTotalBytes);
    out["predicted_without_allowances_bytes"] = number(comparison.predictedWithoutAllowancesBytes);
    ordered_json totals = ordered_json::array();
    for (const auto& total : comparison.totals) {
        const double difference = total.measuredBytes - total.predictedBytes;
        totals.push_back({{"predicted", total.predicted},
                          {"measured", total.measured},
                          {"predicted_bytes", number(total.predictedBytes)},
                          {"measured_bytes", number(total.measuredBytes)},
                          {"difference_bytes", number(difference)},
                          {"difference_percent", optionalNumber(percentOf(difference, total.predictedBytes))}});
    }
    out["totals"] = std::move(totals);
    out["line_phase"] = comparison.linePhase ? ordered_json(std::string(toString(*comparison.linePhase))) : ordered_json(nullptr);
    ordered_json phases = ordered_json::array();
    for (const auto& phase : comparison.phases) {
        const double difference = phase.measuredBytes - phase.predictedBytes;
        phases.push_back({{"predicted", phase.predicted},
                          {"measured", phase.measured},
                          {"predicted_bytes", number(phase.predictedBytes)},
                          {"measured_bytes", number(phase.measuredBytes)},
                          {"difference_bytes", number(difference)},
                          {"difference_percent", optionalNumber(percentOf(difference, phase.predictedBytes))}});
    }
    out["phases"] = std::move(phases);
    out["config"] = ordered_json::parse(configToJson(comparison.config));
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

namespace {

ordered_json unmappedArray(const std::vector<Unmapped>& list) {
    ordered_json out = ordered_json::array();
    for (const auto& u : list) out.push_back({{"key", u.key}, {"value", u.value}, {"reason", u.reason}});
    return out;
}

// An assignment's text as the field's JSON type (numbers, true/false, strings).
ordered_json typedValue(const Assignment& a) {
    const FieldSpec* field = findField(a.key);
    if (field && (field->kind == FieldKind::integer || field->kind == FieldKind::number))
        if (const auto value = detail::parseNumber(a.text)) return number(*value);
    if (field && field->kind == FieldKind::boolean) return a.text == "true";
    return a.text;
}

}  // namespace

std::string importToJson(const ImportResult& result, int indent) {
    ordered_json out;
    out["format"] = std::string(toString(result.format));
    if (!result.ok()) {
        out["errors"] = problems(result.errors);
        return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
    }
    ordered_json config = ordered_json::object();
    for (const auto& a : result.assignments) config[a.key] = typedValue(a);
    out["config"] = config;
    out["unmapped"] = unmappedArray(result.unmapped);
    out["warnings"] = result.warnings;
    out["assumed"] = problems(result.assumed);  // needs the user's input: the file does not say
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

std::string exportToJson(ImportFormat format, const ExportResult& result, int indent) {
    ordered_json out;
    out["format"] = std::string(toString(format));
    out["text"] = result.text;
    out["not_exported"] = unmappedArray(result.notExported);
    return out.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace membudget
