// What a visitor's browser transfers for the page: index.html and every file it loads, gzipped.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Budgets in bytes (KB = 1,000 bytes). */
// The on-demand module 232 KB since issue 27's Llama 4 (attention_chunk, its chunked KV cache and the llama4_text
// rules; 231.2 KB measured; the page's wasm 114.0 and page transfer 156.0 KB, at their budgets).
// The on-demand module 230 KB since issue 27's gpt-oss (MXFP4 experts, expert biases, attention sinks and their
// config.json rules; 229.5 KB measured; the page's wasm 113.6 and page transfer 155.6 KB within 114 and 156).
// The page's wasm 114 KB, page transfer 156 KB, the on-demand module 229 KB since issue 27's query/key norms and
// post-norms (two fields, their parameters and saved tensors, the config.json rules of Qwen3, Gemma, GLM-4, OLMo 2;
// 113.0, 154.9 and 228.7 KB measured).
// The page's wasm 113 KB, page transfer 155 KB, the on-demand module 227 KB since issue 27's eight presets of 2024-25
// (Llama 3.2/3.3, Mistral v0.3, Qwen2.5, Qwen3 dense and MoE, Gemma 2; 112.0, 153.9 and 226.7 KB measured).
// The page's wasm 112 KB, page transfer 154 KB, the on-demand module 226 KB since issue 27's sliding-window attention
// (two fields, the KV cache's sliding layers, the attention pattern read from config.json with Gemma 2/3's rules;
// 111.1, 153.0 and 225.9 KB measured). Page transfer 153 KB and the on-demand module 223 KB since issue 27's config.json reading (Python's bare
// Infinity/NaN on the page, +0.2 KB; quantization_config as weight_dtype and the notices of what is not read, +2.2 KB;
// 152.1 KB and 222.7 KB measured). The page's wasm: 111 KB since DeepSpeed's stage3_param_persistence_threshold (its field and per-tensor walk, +0.5 KB;
// 110.1 KB measured; the on-demand module 221 KB, 220.2 KB measured); 110 KB since vLLM's profiling sampler and the compile_loss and fp8_all_gather fields (+1.5 KB;
// 109.6 KB measured, docs/speed.md); page transfer 152 KB with them (151.0 KB measured); 109 KB since torchtitan's chunked loss, AsyncTP's workspace and torchtune's compiled loss (+0.6 KB;
// 108.1 KB measured, docs/speed.md); 108 KB since the frameworks' own tensors and buffers of issue 26 (torchtitan's loss_parallel and
// MoE layer, DeepSpeed's BF16 master, DeepEP's buffers and the moe_dispatcher field, all part of every evaluation,
// +2.3 KB; 107.5 KB measured, docs/speed.md); 106 KB since DeepSpeed's four buffers became fields (their keys and ranges, +0.8 KB; 105.2 KB
// measured); 105 KB since issue 26's error band (part of every evaluation's verdict: the validation table's
// families and errors as constant data, the band's text, and Result's band carried by every evaluation, +4.0 KB;
// 104.3 KB measured, docs/speed.md); 101 KB since issue 24 (the import and export formats and their names from the wasm, 0.3 KB, and
// the tensor names as a table; 100.1 KB measured, docs/speed.md); before it, 80 KB until issue 15, whose framework model (each framework's static memory, layers, loss,
// checkpointing policies, workspaces and the allocator's reserve) is part of every evaluation and cannot load
// on demand; 90 KB since; 95 KB since issue 18 (LoRA and QLoRA, also part of every evaluation); 100 KB since issue
// 19 (the step-time estimate, part of every training evaluation) (docs/speed.md); 99.9 KB since the engine names the
// page's import and export formats (issue 24, 337 bytes), which leaves the next feature of the page's module no room.
// The on-demand module (planner, advice, importers): 150 KB until issue 16, whose import and export mappings of
// five frameworks (engine/src/formats/, built -Oz) add 40 KB to it; 200 KB since; 220 KB since issue
// 19 (the step time of every fitting row, the recommendation, advice's step-time costs: 210.9 KB, leaving the next
// feature 9 KB) (docs/speed.md).
export const BUDGETS = { pageGzipBytes: 156_000, wasmGzipBytes: 114_000, plannerWasmGzipBytes: 232_000 };

/**
 * @param {string} dist
 * @returns {{ files: { name: string; bytes: number; gzipBytes: number }[]; pageGzipBytes: number; wasmGzipBytes: number;
 *   plannerFiles: { name: string; bytes: number; gzipBytes: number }[]; plannerWasmGzipBytes: number }}
 */
export function pageSizes(dist) {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  // The page loads its entry script and stylesheet, and the script fetches the .wasm.
  // (index.html preloads the page's .wasm, so it is among the references.)
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
    plannerFiles,
    plannerWasmGzipBytes: wasmOf(plannerFiles),
  };
}
