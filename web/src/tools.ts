// The on-demand module's slow work off the page's main thread: a config.json import or a measured file (either
// may be megabytes of JSON) runs in the planner's worker, so that the page keeps answering while it parses;
// the single-file page, which has no worker file, runs it in place. Text over the inputs' limit is refused
// before anything reads it.
import {
  loadPlannerEngine,
  MembudgetError,
  type Config,
  type ConfigExport,
  type Decoded,
  type ImportFormat,
  type MeasuredFileRead,
} from './engine';
import { importText, reportedImport, type ReportedImport } from './import-run';
import { MAX_INPUT_BYTES, tooLargeMessage } from './limits';
import type { PlanMessage, PlanReply } from './plan-run';
import workerUrl from './plan-worker.ts?worker&url';

declare const __MEMBUDGET_WORKER__: boolean;

export function tooLarge(what: string, bytes: number): MembudgetError | undefined {
  if (bytes <= MAX_INPUT_BYTES) return undefined;
  return new MembudgetError([{ field: '', message: tooLargeMessage(what, bytes) }]);
}

// The worker's script URL passes through the one Trusted Types policy the page's CSP allows (membudget-worker),
// created once: the policy refuses a second policy of the same name.
interface TrustedTypesLike {
  createPolicy(name: string, rules: { createScriptURL(url: string): string }): { createScriptURL(url: string): unknown };
}
let policy: { createScriptURL(url: string): unknown } | undefined | null = null;

export function startWorker(): Worker {
  if (policy === null) {
    const types = (globalThis as { trustedTypes?: TrustedTypesLike }).trustedTypes;
    policy = types?.createPolicy('membudget-worker', {
      createScriptURL(url) {
        if (url !== workerUrl) throw new TypeError('membudget: not the planner worker');
        return url;
      },
    });
  }
  return new Worker((policy ? policy.createScriptURL(workerUrl) : workerUrl) as string, { type: 'module', name: 'membudget-planner' });
}

let nextId = 0;

function inWorker<T>(message: PlanMessage, pick: (reply: PlanReply) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = startWorker();
    worker.onmessage = (event: MessageEvent<PlanReply>) => {
      const reply = event.data;
      worker.terminate();
      if (reply.kind === 'error') reject(new MembudgetError(reply.problems));
      else {
        const value = pick(reply);
        if (value === undefined) reject(new MembudgetError([{ field: '', message: `unexpected reply ${reply.kind}` }]));
        else resolve(value);
      }
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new MembudgetError([{ field: '', message: `the worker failed: ${event.message || 'no message'}` }]));
    };
    worker.postMessage(message);
  });
}

/** A Hugging Face config.json onto `config` (Engine.importHfConfig), off the main thread. */
export async function importConfig(config: Config, text: string): Promise<Decoded> {
  const refused = tooLarge('The config.json', text.length);
  if (refused) throw refused;
  if (!__MEMBUDGET_WORKER__) return (await loadPlannerEngine()).importHfConfig(config, text);
  return inWorker({ id: ++nextId, kind: 'import', config, text }, (reply) => (reply.kind === 'imported' ? reply.result : undefined));
}

/** A framework's configuration (docs/import.md) onto `config`, off the main thread; format '' detects it. */
export async function importAnyConfig(config: Config, text: string, format: ImportFormat | ''): Promise<ReportedImport> {
  const refused = tooLarge('The configuration', text.length);
  if (refused) throw refused;
  if (!__MEMBUDGET_WORKER__) return reportedImport(await importText(await loadPlannerEngine(), config, text, format));
  return inWorker({ id: ++nextId, kind: 'config-import', config, text, format }, (reply) =>
    reply.kind === 'config-imported' ? reply.result : undefined,
  );
}

/** The configuration in a framework's own form (the CLI's export); the on-demand module loads on the first. */
export async function exportAs(config: Config, format: ImportFormat): Promise<ConfigExport> {
  return (await loadPlannerEngine()).exportConfig(config, format);
}

/** A measured file through the engine's reader (Engine.readMeasuredFile), off the main thread. */
export async function readMeasured(text: string): Promise<MeasuredFileRead> {
  const refused = tooLarge('The measured file', text.length);
  if (refused) throw refused;
  if (!__MEMBUDGET_WORKER__) return (await loadPlannerEngine()).readMeasuredFile(text);
  return inWorker({ id: ++nextId, kind: 'measured', text }, (reply) => (reply.kind === 'measured' ? reply.file : undefined));
}
