// The one place that touches the WebAssembly module: loads it once (a cached promise) and turns the
// engine's error values into thrown MembudgetErrors. Every other file imports from here.
import createMembudget from './wasm/membudget.js';
import type {
  Config,
  Field,
  GpuPreset,
  HfValue,
  Line,
  MembudgetModule,
  MethodColumn,
  ModelPreset,
  Phase,
  Problem,
  Result,
  Stage,
  Tensor,
} from './wasm/membudget.js';
import wasmUrl from './wasm/membudget.wasm?url';

export type { Config, Field, GpuPreset, Line, MethodColumn, ModelPreset, Phase, Problem, Result, Stage, Tensor };

export type Verdict = 'fits' | 'tight' | 'does_not_fit';

/** A valid configuration's ledger. */
export interface Ledger extends Result {
  verdict: Verdict;
}

/** Thrown for input the engine refuses; `problems` name each field and its allowed range. */
export class MembudgetError extends Error {
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    super(problems.map((p) => p.message).join('; ') || 'invalid configuration');
    this.name = 'MembudgetError';
    this.problems = problems;
  }
}

export interface Decoded {
  config: Config;
  /** Parameters of the link that were skipped: unknown keys, malformed or repeated values. */
  notices: Problem[];
}

export class Engine {
  readonly #module: MembudgetModule;
  #fields: readonly Field[] | undefined;
  #modelPresets: readonly ModelPreset[] | undefined;
  #gpuPresets: readonly GpuPreset[] | undefined;
  #defaults: Config | undefined;

  constructor(module: MembudgetModule) {
    this.#module = module;
  }

  // Read on first use: the first ledger needs none of them, and the page paints it before the form.
  get fields(): readonly Field[] {
    return (this.#fields ??= this.#module.fields());
  }

  get modelPresets(): readonly ModelPreset[] {
    return (this.#modelPresets ??= this.#module.modelPresets());
  }

  get gpuPresets(): readonly GpuPreset[] {
    return (this.#gpuPresets ??= this.#module.gpuPresets());
  }

  defaultConfig(): Config {
    this.#defaults ??= this.#module.defaultConfig();
    return { ...this.#defaults };
  }

  /** The ledger; throws MembudgetError listing every range and consistency error. */
  evaluate(config: Config): Ledger {
    const result = this.#call(() => this.#module.evaluate(this.#complete(config)));
    if (result.errors.length > 0) throw new MembudgetError(result.errors);
    return result as Ledger;
  }

  /** Range and consistency errors, as values (for showing each next to its field). */
  validate(config: Config): Problem[] {
    return this.#call(() => this.#module.validate(this.#complete(config)));
  }

  /** Sets one field from text as typed or linked; a preset id also fills the fields it sets. */
  setField(config: Config, key: string, text: string): Config {
    const parsed = this.#call(() => this.#module.setField(this.#complete(config), key, text));
    if (parsed.problems.length > 0) throw new MembudgetError(parsed.problems);
    return parsed.config;
  }

  fieldTexts(config: Config): Record<keyof Config, string> {
    return this.#call(() => this.#module.fieldTexts(this.#complete(config)));
  }

  encodeQuery(config: Config): string {
    return this.#call(() => this.#module.encodeQuery(this.#complete(config)));
  }

  decodeQuery(query: string): Decoded {
    const parsed = this.#call(() => this.#module.decodeQuery(query));
    return { config: parsed.config, notices: parsed.problems };
  }

  /** Every method's ledger for the configuration; a method that refuses it carries its errors. */
  compare(config: Config): MethodColumn[] {
    return this.#call(() => this.#module.compare(this.#complete(config)));
  }

  differenceReason(method: string, lineId: string): string {
    return this.#call(() => this.#module.differenceReason(method, lineId));
  }

  /** A Hugging Face config.json onto `config`; throws MembudgetError if it cannot be read. */
  importHfConfig(config: Config, text: string): Decoded {
    let root: unknown;
    let rootType = 'object';
    try {
      root = JSON.parse(text);
    } catch {
      rootType = 'invalid';
    }
    const fields: HfValue[] = [];
    if (rootType !== 'invalid') {
      if (root === null || typeof root !== 'object' || Array.isArray(root)) {
        rootType = root === null ? 'null' : Array.isArray(root) ? 'array' : typeof root;
      } else {
        for (const [key, value] of Object.entries(root)) {
          const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
          fields.push({ key, type, text: type === 'number' || type === 'boolean' || type === 'string' ? String(value) : '' });
        }
      }
    }
    const imported = this.#call(() => this.#module.importHfFields(this.#complete(config), rootType, fields));
    if (imported.errors.length > 0) throw new MembudgetError(imported.errors);
    return { config: imported.config, notices: imported.notices };
  }

  /** The engine's result as a value, errors included (for exports; evaluate() throws instead). */
  result(config: Config): Result {
    return this.#call(() => this.#module.evaluate(this.#complete(config)));
  }

  // Embind throws a TypeError for a missing field; fill gaps from the defaults instead.
  #complete(config: Partial<Config>): Config {
    return { ...this.defaultConfig(), ...config };
  }

  #call<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof MembudgetError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new MembudgetError([{ field: '', message: `engine call failed: ${message}` }]);
    }
  }
}

let cached: Promise<Engine> | undefined;
let failLoad: (error: unknown) => void = () => {};

/**
 * Loads the engine once. In the browser the .wasm is fetched next to the page (or from the data URL the
 * single-file build inlines); Node callers pass the bytes.
 */
export function loadEngine(wasmBinary?: ArrayBuffer | Uint8Array): Promise<Engine> {
  cached ??= (async () => {
    if (wasmBinary) return new Engine(await createMembudget({ wasmBinary }));
    // Compile while the bytes arrive (index.html preloads them alongside the script).
    const compiled = WebAssembly.compileStreaming(fetch(wasmUrl));
    const failed = new Promise<never>((_, reject) => {
      failLoad = reject;
    });
    return new Engine(
      await Promise.race([failed, createMembudget({
        instantiateWasm(imports, receiveInstance) {
          compiled
            .then((module) => WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module)))
            .catch((error: unknown) => failLoad(error));
          return {};
        },
      })]),
    );
  })();
  cached.catch(() => {
    cached = undefined;  // a failed load (offline, blocked) can be retried
  });
  return cached;
}
