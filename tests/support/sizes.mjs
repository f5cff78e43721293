// What a visitor's browser transfers for the page: index.html and every file it loads, gzipped.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Budgets in bytes (KB = 1,000 bytes). */
// Each raise and its reason is a row of docs/speed.md ("Speed and budgets"); the latest: issue 26's gradients made in
// backward, autocast's cache under checkpointing, the compiled save-set, the max_split_size_mb and autocast fields;
// budgets 126, 173, 252 KB, 125.9, 172.0 and 251.6 KB measured; then issue 29's unreadable values in the importers
// (on-demand module 253 KB, 252.2 KB measured); then the step-time texts out of both modules and issue 28's run on a
// token budget (page transfer 174 KB, 173.1 KB measured), and its "Which GPU?" (on-demand module 254 KB, 253.8 KB
// measured); then issue 29's strict UTF-8 in text fields (175 KB and 255 KB; 174.2 and 254.3 KB measured), and its Megatron-LM choices
// (on-demand module 256 KB, 255.1 KB measured); then issue 28's EP all-to-all overlap (`overlap_moe_comm`, in both
// modules; 127, 176 and 257 KB; 126.3, 175.0 and 256.7 KB measured), and its custom pipeline layout
// (`pipeline_layout`; 129, 178 and 261 KB; 128.8, 177.6 and 260.4 KB measured), then its parse kept per thread so
// that a pathological layout is unrolled once, not once a stage (130 and 179 KB; 129.1 and 178.0 KB measured); then issue 29's
// plans refused from a count before any row (on-demand module 262 KB, 261.6 KB measured), and its export's notes of
// what a format cannot write (263 KB), and torchtune's YAML read as OmegaConf reads it in the engine (266 KB, 265.2
// KB measured). Since issue 27's ten
// presets the modules leave the presets' sources out. Issue 31 lowered all three to what it left, with a little room:
// 121, 172 and 280 KB (119.4, 170.4 and 277.9 KB measured), so that the room it made is not spent unnoticed. Then the
// page's module came as code and data apart (scripts/split-wasm-data.mjs): its data section (the ledger's text, the
// tables), 26.5 KB gzipped, is a file the page preloads beside the module, with a budget of its own (28 KB); the
// module, code only, 87.9 KB, and the page 166.0 KB: budgets 89 and 168 KB. Then the methods compared side by side
// moved to the on-demand module, one copy of the ledger's describing code instead of one a tensor kind, and Binaryen
// once more after emscripten's steps: 84.0 KB and 162.4 KB measured, budgets 85 KB (issue 31's goal) and 164 KB.
// Issue 57's record tables kept all four: 83.7, 27.6, 162.8 and 273.0 KB measured (the data file 1.1 KB more: the
// tables' columns; their JSON keys and documentation stay out of the wasm).
// Issue 58's MoE memory (the routed rows, the routing balance's three keys, Megatron-LM's recompute_modules with
// their validation, the ledger's notes on both and the selective walk) raised the page's module to 87.5 KB and the
// page to 167 KB: 86.8 and 166.4 KB measured (data file 27.99 KB, on-demand module 278.5 KB); then torchtitan's
// op-level save set of a MoE block (five tensor kinds and their names) the data file to 28.5 KB: 87.0, 28.03, 166.7
// and 279.5 KB measured; then DeepSeek-V3's MLA under op-level SAC (its own mms, and which of the MLP's they leave
// kept) the page's module to 88.5 KB, the page to 168.5 KB and the on-demand module to 281.5 KB: 87.8, 28.13, 167.6
// and 280.4 KB measured; then issue 58's grouped-GEMM workspaces and MLA latents and issue 59's runtime constants (a
// table of per-vendor constants with their published ranges, its doubles in the data file, its lookup in both modules)
// the page's module to 88.8 KB, the data file to 28.8 KB, the page to 169 KB and the on-demand module to 282.5 KB:
// 88.6, 28.56, 168.8 and 282.2 KB measured; then issue 59's priced MoE launch path (a Megatron-LM MoE layer's host-paced
// forward launches, and its text) the page's module to 89.5 KB and the page to 170 KB: 89.3 and 169.6 KB measured;
// then its measured NCCL floors (all-reduce, all-gather and all-to-all, eager) the page's module to 90 KB, the page to
// 170.5 KB and the on-demand module to 283 KB: 89.6, 170.0 and 282.6 KB measured; then its speed bands (every estimate
// at the runtime constants' two ends and reported at the band's midpoint, the bands' record columns, the planner's
// as-fast mark, the grouped GEMMs' rows per expert) the data file to 28.9 KB and the on-demand module to 285 KB:
// 28.86 and 284.8 KB measured; then FlashAttention-3's published speedup as the attention's range (its rows) the data
// file to 29 KB: 28.90 KB measured. Issue 60's serving benchmark (num_prompts, request_rate, length_range_ratio: the
// requests scheduled pass by pass as vLLM's and SGLang's schedulers run them, its record of P99s, ITL and the run,
// both modules, since every inference evaluation may ask for it) raised the page's module to 95.5 KB, the data file to
// 29.5 KB, the page to 177 KB and the on-demand module to 292 KB: 94.9, 29.31, 176.7 and 291.5 KB measured; then its
// SGLang data-parallel attention (attention_dp: the attention over its group, a group's requests in its cache, the
// gather and scatter around the MLP, the planner's DPA rows) the data file to 30 KB, the page to 178 KB and the
// on-demand module to 293.5 KB: 95.3, 29.50, 177.3 and 293.0 KB measured; then SGLang's receive interval
// (scheduler_recv_interval, its field and the benchmark's reads) the page's module to 96 KB: 95.57 KB measured; then
// TensorRT-LLM (framework trtllm: its KV share of what is left, whole-prompt batching, its CUDA-graph sizes, three
// fields and their refusals in both modules; its trtllm-serve / trtllm-bench importer with the extra-options YAML and
// its exporter in the on-demand module, the page's here-document parse) the page's module to 98 KB, the data file to
// 33.5 KB, the page to 184 KB and the on-demand module to 314 KB: 97.52, 32.97, 183.4 and 313.4 KB measured.
// The page's module holds what every evaluation needs (framework model, LoRA, step time, presets); the on-demand
// module (planner, advice, importers, exporters, the methods compared) loads only for a plan, advice, an import, an
// export or the methods side by side.
export const BUDGETS = { pageGzipBytes: 184_000, wasmGzipBytes: 98_000, wasmDataGzipBytes: 33_500, plannerWasmGzipBytes: 314_000 };

/**
 * @param {string} dist
 * @returns {{ files: { name: string; bytes: number; gzipBytes: number }[]; pageGzipBytes: number; wasmGzipBytes: number;
 *   wasmDataGzipBytes: number; plannerFiles: { name: string; bytes: number; gzipBytes: number }[]; plannerWasmGzipBytes: number }}
 */
export function pageSizes(dist) {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  // The page loads its entry script and stylesheet, and the script fetches the .wasm.
  // (index.html preloads the page's .wasm and its data file, so they are among the references.)
  const referenced = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1]);
  const assets = readdirSync(join(dist, 'assets')).map((f) => `assets/${f}`);
  // The planner's worker, its module's glue and its .wasm load only when a search starts.
  const planner = assets.filter((f) => /\/(plan-worker|membudget-planner)[-.]/.test(f));
  /** @param {string} name */
  const sized = (name) => {
    const content = readFileSync(join(dist, name));
    return { name, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
  };
  const files = ['index.html', ...new Set(referenced)].map(sized);
  const plannerFiles = planner.map(sized);
  /** @param {{ name: string; gzipBytes: number }[]} list */
  const wasmOf = (list) => list.filter((f) => f.name.endsWith('.wasm')).reduce((sum, f) => sum + f.gzipBytes, 0);
  return {
    files,
    pageGzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0),
    wasmGzipBytes: wasmOf(files),
    // The page's module's data file (web/src/wasm-data.ts), which index.html preloads beside it.
    wasmDataGzipBytes: files.filter((f) => /membudget-data-[^/]+\.bin$/.test(f.name)).reduce((sum, f) => sum + f.gzipBytes, 0),
    plannerFiles,
    plannerWasmGzipBytes: wasmOf(plannerFiles),
  };
}
