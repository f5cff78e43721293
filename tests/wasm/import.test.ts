// The page's import (JSON.parse, smol-toml, yaml, shell-quote, then the engine's mapping in the on-demand wasm)
// against the CLI's (nlohmann/json, toml++, yaml-cpp, its tokenizer, the same mapping), for every real file in
// tests/fixtures/import/, and the page's export against `membudget export`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPlannerEngine, MembudgetError, type Engine, type ImportFormat } from '../../web/src/engine';
import { parseImport, shellWords } from '../../web/src/import-parse';
import { importText } from '../../web/src/import-run';
import { runCli } from '../support/cli';
import { FIXTURES, PLANNER_WASM, ROOT } from '../support/paths';

let engine: Engine;
beforeAll(async () => {
  engine = await loadPlannerEngine(readFileSync(PLANNER_WASM));
});

/**
 * `text` imported by the page as `membudget import` imports it (written to build/`file`): refused alike (what it
 * maps and membudget cannot take is refused whole, exit 2), else the same keys and the same unmapped values.
 */
async function expectImportLikeCli(text: string, format: ImportFormat, file: string): Promise<void> {
  const path = join(ROOT, `build/${file}`);
  writeFileSync(path, text);
  const cli = runCli(['import', path, '--format', format]);
  const page = await importText(engine, engine.defaultConfig(), text, format).then(
    (imported) => ({ refused: imported.problems.length > 0, imported }),
    () => ({ refused: true, imported: undefined }),
  );
  expect(page.refused, text).toBe(cli.status !== 0);
  if (page.imported === undefined || page.refused) return;
  const native = JSON.parse(cli.stdout);
  expect(Object.fromEntries(page.imported.assignments.map((a) => [a.key, a.text])), text).toEqual(
    Object.fromEntries(Object.entries(native.config).map(([k, v]) => [k, String(v)])),
  );
  expect(page.imported.unmapped, text).toEqual(native.unmapped);
}

const dir = join(FIXTURES, 'import');
const files = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(dir, d.name))
      .filter((f) => !f.endsWith('.expect.json') && f !== 'README.md')
      .map((f) => join(dir, d.name, f)),
  )
  .sort();

describe('the page imports every fixture exactly as the CLI does', () => {
  it('has fixtures of every format', () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
  });
  for (const file of files) {
    it(file.slice(dir.length + 1), async () => {
      const text = readFileSync(file, 'utf8');
      const native = JSON.parse(runCli(['import', file]).stdout);
      const imported = await importText(engine, engine.defaultConfig(), text, '');
      expect(imported.format).toBe(native.format);
      expect(Object.fromEntries(imported.assignments.map((a) => [a.key, a.text]))).toEqual(
        Object.fromEntries(Object.entries(native.config).map(([k, v]) => [k, String(v)])),
      );
      expect(imported.unmapped).toEqual(native.unmapped);
      expect(imported.warnings).toEqual(native.warnings);
    });
  }
});

describe('a key holding a dot is one key, not a path, on the page as in the CLI', () => {
  // Each file, and the key its dotted key would set (to the value given) if it were read as a path.
  const cases: [string, string, string, string][] = [
    ['ds.json', '{"train_micro_batch_size_per_gpu": 2, "zero_optimization.stage": 3, "bf16": {"enabled": true}}', 'zero', '3'],
    [
      'tt.toml',
      '"parallelism.tensor_parallel_degree" = 8\n[model]\nname = "llama3"\nflavor = "8B"\n[training]\nlocal_batch_size = 1\nseq_len = 2048\n',
      'tp',
      '8',
    ],
    [
      'tune.yaml',
      'model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: 2\n"training.enable_activation_checkpointing": true\n',
      'ckpt',
      'full',
    ],
  ];
  for (const [name, text, key, value] of cases) {
    it(name, async () => {
      const path = join(ROOT, `build/membudget-dotted-${name}`);
      writeFileSync(path, text);
      const native = JSON.parse(runCli(['import', path]).stdout);
      const imported = await importText(engine, engine.defaultConfig(), text, '');
      expect(Object.fromEntries(imported.assignments.map((a) => [a.key, a.text]))).toEqual(
        Object.fromEntries(Object.entries(native.config).map(([k, v]) => [k, String(v)])),
      );
      expect(imported.unmapped).toEqual(native.unmapped);
      expect(String(native.config[key])).not.toBe(value);
      const syntax = name.split('.').pop()!;
      expect((await parseImport(text, syntax)).values.some((v) => v.key.includes('["'))).toBe(true);
    });
  }
});

describe('a here-document’s body is text, not flags, on the page as in the CLI', () => {
  const launch =
    'torchrun pretrain_gpt.py --num-layers 4 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 --vocab-size 1000 --micro-batch-size 1 --bf16';
  for (const [opener, body] of [
    ['cat > notes.txt <<EOF', '--tensor-model-parallel-size 8\nEOF'],
    ['cat <<-END > x', '\t--tensor-model-parallel-size 8\n\tEND'],
    ["cat << 'EOF'", '--tensor-model-parallel-size 8\nEOF'],
    ['cat <<A <<B', '--tensor-model-parallel-size 8\nA\n--tensor-model-parallel-size 4\nB'],
    ['grep x <<< "y"', ''],
  ] as const) {
    it(opener, async () => {
      const text = `${opener}\n${body}${body ? '\n' : ''}${launch} --tensor-model-parallel-size 2\n`;
      const path = join(ROOT, 'build/membudget-heredoc.sh');
      writeFileSync(path, text);
      const native = JSON.parse(runCli(['import', path]).stdout);
      const imported = await importText(engine, engine.defaultConfig(), text, '');
      expect(Object.fromEntries(imported.assignments.map((a) => [a.key, a.text]))).toEqual(
        Object.fromEntries(Object.entries(native.config).map(([k, v]) => [k, String(v)])),
      );
      expect(imported.assignments.find((a) => a.key === 'tp')?.text).toBe('2');
      expect((await shellWords(text)).flat().filter((w) => w === '--tensor-model-parallel-size')).toHaveLength(1);
    });
  }
});

describe('TensorRT-LLM’s extra options, pasted as a here-document or alone, on the page as in the CLI', () => {
  const serve = 'trtllm-serve meta-llama/Llama-3.1-8B-Instruct --tp_size 2 --max_batch_size 64';
  const cases = [
    `cat > x.yml <<'EOF'\nkv_cache_config:\n  dtype: fp8\n  free_gpu_memory_fraction: 0.85\ncuda_graph_config: null\nEOF\n${serve} --extra_llm_api_options x.yml\n`,
    `X=/tmp/o.yml\ncat << EOF > \${X}\nenable_attention_dp: true\ncuda_graph_config:\n  batch_sizes: [1, 2, 4, 64]\nuse_cuda_graph: true\nEOF\n${serve} --config $X\n`,
    `cat <<EOF | tee o.yml\nkv_cache_config:\n  dtype: fp8\nkv_cache_config:\n  dtype: auto\nEOF\n${serve} --config o.yml\n`,
    `cat > o.yml <<EOF\nkey: [unclosed\nEOF\n${serve} --config o.yml\n`,
    `cat > o.yml <<EOF\nenable_chunked_prefill: yes\nmax_num_tokens: 1_024\nEOF\n${serve} --config ./o.yml\n`,
    'enable_attention_dp: false\nkv_cache_config:\n  tokens_per_block: 64\nmax_batch_size: 16\n',
  ];
  it(`gives the CLI's configuration, unmapped values and refusals for ${cases.length} texts`, async () => {
    for (const text of cases) await expectImportLikeCli(text, 'trtllm', 'membudget-trtllm.sh');
  });
});

describe('a torchtune YAML is read as OmegaConf reads it, on the page as in the CLI', () => {
  // Unquoted scalars typed by OmegaConf's loader (tests/fixtures/yaml-scalars.json), one document, no key twice.
  const scalars = (JSON.parse(readFileSync(join(FIXTURES, 'yaml-scalars.json'), 'utf8')) as { scalars: { text: string }[] }).scalars;
  const picked = scalars.filter((_, i) => i < 90 || i % 97 === 0).map((s) => s.text);
  const head = 'model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n';
  const cases = [
    ...picked.map((t) => `${head}batch_size: ${t}\ncompile: ${t}\n`),
    `${head}batch_size: "010"\n`,
    `${head}seq: 512\ntokenizer:\n  max_seq_len: \${seq}\n`,
    `${head}batch_size: 2\nbatch_size: 4\n`,
    `${head}batch_size: 2\n---\nbatch_size: 4\n`,
  ];
  it(`gives the CLI's configuration, unmapped values and refusals for ${cases.length} generated files`, async () => {
    for (const text of cases) await expectImportLikeCli(text, 'torchtune', 'membudget-omegaconf.yaml');
  });
});

describe('the page exports as the CLI does, and reads its export back', () => {
  const queries = [
    'model=llama-3.1-70b&tp=8&pp=2&dp=16&ckpt=selective&sp=true&method=membudget',
    'model=llama-3.1-8b&tp=1&dp=8&zero=3&framework=torchtitan&ckpt=op&method=membudget&compile=true',
    'model=mixtral-8x7b&tp=2&pp=1&dp=8&ep=4&zero=1&method=membudget',
    'model=llama-3.1-8b&mode=inference&tp=2&mb=64&seq=32768&kv_dtype=fp8&weight_dtype=fp8',
  ];
  for (const query of queries) {
    it(query, () => {
      const config = engine.decodeQuery(query).config;
      const formats: ImportFormat[] =
        config.mode === 'inference' ? ['vllm', 'sglang', 'trtllm'] : ['megatron', 'torchtitan', 'torchtune', 'deepspeed'];
      for (const format of formats) {
        const exported = engine.exportConfig(config, format);
        const native = JSON.parse(runCli(['export', '--format', format, '--json', '--url', query]).stdout);
        expect(exported.text, format).toBe(native.text);
        expect(exported.notExported, format).toEqual(native.not_exported);
      }
    });
  }
});

describe('the formats the page offers are the engine’s', () => {
  it('imports every format of choices.hpp, in its order, and writes exactly those the engine exports', () => {
    const choices = /struct ChoiceNames<ImportFormat> \{[^}]*names\{([^}]*)\}/.exec(
      readFileSync(join(ROOT, 'engine/include/membudget/base/choices.hpp'), 'utf8'),
    )![1]!;
    expect(engine.formats.map((f) => f.id)).toEqual([...choices.matchAll(/"([^"]*)"/g)].map((m) => m[1]));
    const config = engine.defaultConfig();
    for (const format of engine.formats) {
      expect(format.label, format.id).not.toBe('');
      // The engine writes a text for a format it exports, and for the others says why not.
      expect(engine.exportConfig(config, format.id).text !== '', format.id).toBe(format.exports);
    }
    expect(engine.formats.filter((f) => !f.exports).map((f) => f.id)).toEqual(['hf']);
  });
});

describe('the page refuses what it cannot read, naming why', () => {
  const cases: [string, ImportFormat | '', string][] = [
    ['[parallelism]\ntensor_parallel_degree = ', '', 'TOML'],
    ['model:\n\t_component_: x\n', 'torchtune', 'YAML'],
    ['{ // comment\n "zero_optimization": {"stage": 3} }', '', 'JSON'],
    ['#!/bin/bash\necho hello\npython train.py --lr 1\n', 'megatron', 'no Megatron-LM flags'],
    ['just some words\n', '', 'not a configuration membudget can read'],
  ];
  for (const [text, format, expected] of cases) {
    it(JSON.stringify(text).slice(0, 40), async () => {
      const attempt = importText(engine, engine.defaultConfig(), text, format);
      await expect(attempt).rejects.toThrow(MembudgetError);
      await expect(attempt).rejects.toThrow(expected);
    });
  }
  it('keeps a YAML alias bomb within the value limit', async () => {
    let bomb = 'a: &a [x, x, x, x, x, x, x, x, x, x]\n';
    for (let c = 'b'.charCodeAt(0); c <= 'j'.charCodeAt(0); c++) {
      const prev = String.fromCharCode(c - 1);
      bomb += `${String.fromCharCode(c)}: &${String.fromCharCode(c)} [${Array(10).fill(`*${prev}`).join(', ')}]\n`;
    }
    const parsed = await parseImport(bomb, 'yaml');
    expect(parsed.rootType).toBe('invalid');
  });
  it('bounds a long key repeated under many values as the CLI does, in every structured syntax', async () => {
    // Generated: a key of `width` bytes (ASCII, or 3-byte characters) over `count` values, just under and just
    // over the 64 MiB that the paths and values flatten to; the page refuses exactly what the CLI refuses.
    const cases: { syntax: 'json' | 'toml' | 'yaml'; width: number; count: number; char: string }[] = [];
    const ascii = [
      [1 << 20, 70, 'k'],
      [1 << 20, 60, 'k'],
    ] as const;
    const wide = [
      [Math.floor((1 << 20) / 3), 70, '€'],
      [Math.floor((1 << 20) / 3), 60, '€'],
    ] as const;
    for (const [syntax, shapes] of [
      // JSON through the engine's reader; YAML (and TOML) through the CLI's flattener; the page's one flattener.
      ['json', ascii],
      ['yaml', wide],
    ] as const)
      for (const [width, count, char] of shapes) cases.push({ syntax, width, count, char });
    let refused = 0;
    for (const { syntax, width, count, char } of cases) {
      const key = char.repeat(width);
      const children = Array.from({ length: count }, (_, i) => i);
      const text =
        syntax === 'json'
          ? `{"train_micro_batch_size_per_gpu": 1, "${key}": {${children.map((i) => `"v${i}": ${i}`).join(', ')}}}`
          : syntax === 'toml'
            ? `[model]\nname = "llama3"\nflavor = "8B"\n["${key}"]\n${children.map((i) => `v${i} = ${i}`).join('\n')}\n`
            : `model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n? "${key}"\n:\n${children.map((i) => `  v${i}: ${i}`).join('\n')}\n`;
      const path = join(ROOT, `build/membudget-long-key.${syntax}`);
      writeFileSync(path, text);
      const cli = runCli(['import', path]);
      const page = await importText(engine, engine.defaultConfig(), text, '').then(
        () => '',
        (error: unknown) => (error as Error).message,
      );
      const label = `${syntax}, ${count} values under a key of ${width} × ${char}`;
      if (cli.status === 0) {
        expect(page, label).toBe('');
      } else {
        refused += 1;
        expect(cli.stderr, label).toContain('64 MiB once flattened');
        expect(page, label).toContain('64 MiB once flattened');
      }
    }
    expect(refused).toBe(cases.length / 2);
  });
  it("expands bash's ANSI-C quoting ($'…') as the CLI does, over generated escapes", async () => {
    const pieces = [
      'a',
      '8',
      ' ',
      '\\n',
      '\\t',
      '\\e',
      '\\\\',
      "\\'",
      '\\"',
      '\\?',
      '\\101',
      '\\7',
      '\\x41',
      '\\xe9',
      '\\x4',
      '\\u00e9',
      '\\u20AC',
    ];
    pieces.push('\\U0001F600', '\\cA', '\\c?', '\\z', '\\0x', '\\U110000', '"', '$HOME');
    const words: string[] = [];
    for (let i = 0; i < pieces.length; ++i) for (let j = 0; j < pieces.length; j += 3) words.push(`$'${pieces[i]}${pieces[j]}'`);
    const text = `torchrun pretrain_gpt.py --num-layers 4 ${words.map((w, i) => `--x${i} ${w}`).join(' ')} --tensor-model-parallel-size $'2'\n`;
    const path = join(ROOT, 'build/membudget-ansi-c.sh');
    writeFileSync(path, text);
    const native = JSON.parse(runCli(['import', path, '--format', 'megatron']).stdout);
    const imported = await importText(engine, engine.defaultConfig(), text, 'megatron');
    expect(imported.assignments.find((a) => a.key === 'tp')?.text).toBe('2');
    expect(imported.unmapped.length).toBeGreaterThan(words.length);
    expect(imported.unmapped).toEqual(native.unmapped);
  });
  it('reads what Python reads in JSON (1e400, lone surrogates) as the CLI does, over generated documents', async () => {
    const numbers = ['1e400', '-1e400', '1E+400', '9'.repeat(400), '-' + '9'.repeat(400), '1e308', '1e-400', '2.5e3'];
    const strings = ['\\ud800', '\\udc00', 'a\\ud83dz', '\\ud83d\\ude00', '\\ud800\\ud800', 'plain'];
    const docs: string[] = [];
    for (const n of numbers)
      for (const t of strings) docs.push(`{"train_micro_batch_size_per_gpu": ${n}, "zero_optimization": {"stage": 3}, "x${t}": "${t}"}`);
    for (const text of docs) await expectImportLikeCli(text, 'deepspeed', 'membudget-python-json.json');
  });
  it('tokenizes a script as the CLI documents it', async () => {
    expect(await shellWords('a \'b c\' "d $E ${F} \\"g\\"" h\\ i # comment\nx=(1 2) | y;z \\\n  w 2>&1\n')).toEqual([
      ['a', 'b c', 'd ${E} ${F} "g"', 'h i'],
      ['x=', '1', '2', 'y', 'z', 'w', '2', '1'],
    ]);
  });
});
