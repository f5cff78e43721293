#!/usr/bin/env node
// Comments and docs that name a file name one that exists: every repository path written in a tracked source,
// script or document (engine/src/memory/training.cpp, tests/fixtures/…, docs/build.md) resolves from the
// repository root, every public header (membudget/…hpp) is under engine/include, and every bare C++ file name (training.cpp, tensors.hpp) is the name of a file in the tree.
// A file that moved leaves no comment pointing at where it was.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((f) => f && existsSync(join(root, f)));
const basenames = new Set(tracked.map((f) => basename(f)));
// Files that builds write, named in docs and comments as what a command produces.
const GENERATED = [
  /^build(-[\w]+)?\//,
  /^dist\//,
  /^web\/src\/wasm\/membudget(-planner)?\.(js|wasm)$/,
  /^web\/src\/wasm\/membudget-data\.bin$/,
  /^node_modules\//,
];
// Other projects' files that comments and docs cite as sources (PyTorch, FlashAttention, Megatron-LM, llm-foundry):
// not ours, so not in the tree.
const UPSTREAM = new Set([
  'CublasHandlePool.cpp', // PyTorch aten/src/ATen/cuda/
  'CUDACachingAllocator.cpp', // PyTorch c10/cuda/
  'autocast_mode.cpp', // PyTorch aten/src/ATen/
  'flash_api.cpp', // FlashAttention csrc/flash_attn/
  'tests/unit_tests/training/test_weight_and_optimizer_memory.py', // Megatron-LM
  'scripts/train/benchmarking/README.md', // llm-foundry
  'tools/autograd/derivatives.yaml', // PyTorch
  'deep_ep.cpp', // DeepEP csrc/
  'docs/api-guide/core/generalized_tensor_parallel.md', // Megatron-LM
  'capacityScheduler.cpp', // TensorRT-LLM cpp/tensorrt_llm/batch_manager/
  'kvCacheManager.cpp', // TensorRT-LLM cpp/tensorrt_llm/batch_manager/
  'microBatchScheduler.cpp', // TensorRT-LLM cpp/tensorrt_llm/batch_manager/
]);
const TOP = '(?:engine|web|wasm|cli|tests|scripts|docs|tools|bench|public|\\.ci)';
const pathPattern = new RegExp(`(?<![\\w./-])(${TOP}/[\\w.@+-]+(?:/[\\w.@+-]+)*\\.[A-Za-z]{1,5})(?![\\w/])`, 'g');
// A public header as an include names it (membudget/model/config.hpp), under engine/include.
const headerPattern = /(?<![\w./-])(membudget\/[\w/]+\.hpp)\b/g;
const barePattern = /(?<![\w./-])([A-Za-z_][\w-]*\.(?:cpp|hpp))\b/g;
const scanned = tracked.filter(
  (f) => /\.(cpp|hpp|ts|mjs|js|sh|md|py|cmake|txt|json)$|^\.ci\/run$/.test(f) && !f.startsWith('tests/fixtures/'),
);

/** @type {string[]} */
const problems = [];
for (const file of scanned) {
  const text = readFileSync(join(root, file), 'utf8');
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    for (const [, path] of line.matchAll(pathPattern)) {
      const clean = path.replace(/[.,:;)]+$/, '');
      if (GENERATED.some((g) => g.test(clean)) || /[*{}<>]/.test(clean) || UPSTREAM.has(clean)) continue;
      if (!existsSync(join(root, clean))) problems.push(`${file}:${i + 1}: names ${clean}, which does not exist`);
    }
    for (const [, header] of line.matchAll(headerPattern)) {
      if (!existsSync(join(root, 'engine/include', header)))
        problems.push(`${file}:${i + 1}: names ${header}, which engine/include does not have`);
    }
    for (const [, name] of line.matchAll(barePattern)) {
      if (!basenames.has(name) && !UPSTREAM.has(name))
        problems.push(`${file}:${i + 1}: names ${name}, which no file in the tree is called`);
    }
  });
}
if (problems.length) {
  for (const p of problems) console.error(`paths: ${p}`);
  process.exit(1);
}
console.log(`paths: every file named in ${scanned.length} sources and documents exists`);
