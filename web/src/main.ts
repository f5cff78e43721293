// The calculator page: state lives in the link (url-state.ts), every change recomputes at once, and nothing
// leaves the browser.
import './styles.css';
import { loadEngine, MembudgetError, type Config, type Engine, type Ledger, type Problem } from './engine';
import { el, replaceChildren } from './dom';
import { Form } from './form';
import { UNIT_MEANING } from './format';
import { CompareView } from './compare-view';
import { DetailsView } from './details-view';
import { ImportView } from './import-view';
import { LedgerView } from './ledger-view';
import { MeasuredView } from './measured-view';
import { AdviceView, PlannerView } from './planner-view';
import { ToolbarView } from './toolbar-view';
import { UrlState, type ViewState } from './url-state';

class App {
  readonly #engine: Engine;
  #config: Config;
  #ledger: Ledger | undefined;
  #errors: Problem[] = [];
  readonly #url: UrlState;
  readonly #view: ViewState;
  #form: Form | undefined;
  // Holds the form's column from the first frame, so that the ledger does not move when the form arrives.
  readonly #formSlot = el('div', { class: 'form-slot' });
  readonly #ledgerView = new LedgerView();
  readonly #detailsView = new DetailsView();
  readonly #compareView: CompareView;
  readonly #plannerView: PlannerView;
  readonly #adviceView: AdviceView;
  readonly #measuredView: MeasuredView;
  readonly #notices = el('div', { id: 'notices', class: 'notices', role: 'status' });
  readonly #toolbar: ToolbarView;

  constructor(engine: Engine, root: HTMLElement) {
    this.#engine = engine;
    this.#compareView = new CompareView(engine);
    this.#plannerView = new PlannerView(engine, (config) => {
      this.#config = config;
      this.#recompute();
      this.#ledgerView.element.scrollIntoView({ behavior: 'smooth', block: 'start' });
      this.#ledgerView.focusVerdict();
    });
    this.#adviceView = new AdviceView((query) => this.#applyQuery(query));
    this.#url = new UrlState(engine);
    const link = this.#url.read();
    this.#view = link.view;
    this.#config = link.config;
    this.#showNotices(link.notices);
    if (link.chosen.length) this.#showNotices(link.chosen, 'Note:');

    this.#toolbar = new ToolbarView(engine, {
      config: () => this.#config,
      ledger: () => this.#ledger,
      unit: () => this.#view.unit,
      setUnit: (unit) => {
        this.#view.unit = unit;
        this.#recompute();
      },
      link: () => this.#url.current(),
    });

    document.body.classList.toggle('embed', this.#view.embed);
    const whatFits = el('button', { id: 'what-fits', type: 'button', class: 'what-fits' }, 'What fits on my GPUs?');
    whatFits.addEventListener('click', () => this.#plannerView.open());
    replaceChildren(
      root,
      el('a', { class: 'skip-link', href: '#answer' }, 'Skip to the verdict'),
      el(
        'header',
        { class: 'masthead' },
        el(
          'div',
          {},
          el('h1', {}, 'membudget'),
          el(
            'p',
            { class: 'tagline' },
            'Per-GPU memory verification checklist: does this parallel training configuration fit, and what eats the memory?',
          ),
        ),
        whatFits,
        this.#toolbar.openFull,
      ),
      this.#notices,
      el(
        'main',
        { class: 'layout' },
        this.#ledgerView.answer,
        this.#formSlot,
        el(
          'div',
          { class: 'results' },
          this.#toolbar.element,
          this.#ledgerView.element,
          this.#adviceView.element,
          this.#detailsView.element,
          this.#plannerView.element,
          this.#compareView.element,
          this.#toolbar.exported,
        ),
      ),
      el(
        'footer',
        {},
        el(
          'p',
          {},
          'Formulas: the chapter “Memory Budget Verification” (§1 static memory, §2 activations, §3 budget, §4 checklist, §5 pitfalls); each line shows its formula and its numbers. Computed in your browser by the membudget engine (C++ compiled to WebAssembly); nothing is sent anywhere. ',
          UNIT_MEANING.gb,
          ', ',
          UNIT_MEANING.gib,
          '.',
        ),
      ),
      this.#toolbar.toast,
    );
    // The optional "measured" column of the checklist; its file may carry a configuration to load.
    this.#measuredView = new MeasuredView(engine, (config) => {
      this.#config = config;
      this.#recompute();
    });
    this.#ledgerView.element.after(this.#measuredView.element);
    this.#recompute();
    this.#url.flush();
    // The ledger first: the form (33 controls) is built once the ledger has been painted.
    // scripts/measure-budgets.mjs reads these marks: in the DOM, then on screen.
    performance.mark('membudget-ledger-rendered');
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.mark('membudget-ledger-on-screen');
        this.#buildForm();
      }, 0),
    );
  }

  #buildForm(): void {
    this.#form = new Form(this.#engine, (key, text) => this.#onInput(key, text));
    const importer = new ImportView(
      this.#engine.formats,
      () => this.#config,
      (config) => {
        this.#config = config;
        this.#recompute();
      },
    );
    this.#form.element.prepend(importer.element);
    this.#formSlot.replaceWith(this.#form.element);
    this.#showFormState();
    document.body.dataset.ready = 'true';
  }

  /** The form shows the configuration and its problems (Form.show leaves the control being typed in alone). */
  #showFormState(): void {
    if (!this.#form) return;
    // Every field's text (the derived placeholders and the GB fields' unit follow other fields); the control being
    // typed in is left alone (Form.show).
    this.#form.show(this.#engine.fieldTexts(this.#config), this.#config, this.#view.unit, this.#ledger?.parameterCount);
    // A TP the model's heads do not allow: offer the ones they do.
    const tpError = this.#errors.some((e) => e.field === 'tp');
    const offer = tpError
      ? { key: 'tp', values: this.#engine.validTensorParallel(this.#config).slice(0, 16), pick: (tp: number) => this.#pick('tp', tp) }
      : undefined;
    this.#form.showProblems(this.#errors, this.#ledger?.warnings ?? [], offer);
  }

  /** A value picked from an offer: set, shown in the form, recomputed. */
  #pick(key: string, value: number): void {
    this.#config = this.#engine.setField(this.#config, key, String(value));
    this.#recompute();
    document.getElementById(`f-${key}`)?.focus();
  }

  #onInput(key: string, text: string): void {
    try {
      const parsed = this.#engine.setFieldWithNotices(this.#config, key, text);
      this.#config = parsed.config;
      if (parsed.chosen?.length) {
        // The engine changed another field (the method for inference): show it and rewrite the form.
        this.#showNotices(parsed.chosen, 'Note:');
        this.#recompute();
      } else {
        this.#recompute();
      }
    } catch (error) {
      if (!(error instanceof MembudgetError)) throw error;
      // Text the engine cannot read (a letter in a number): not computed, no numbers, the message at the field;
      // the configuration and the link stay what they were.
      this.#ledger = undefined;
      this.#errors = error.problems;
      this.#ledgerView.showErrors(error.problems);
      this.#detailsView.clear();
      this.#form?.showProblems(error.problems, []);
    }
  }

  /** Recomputes and re-renders everything. */
  #recompute(): void {
    const start = performance.now();
    try {
      this.#ledger = this.#engine.evaluate(this.#config);
      this.#errors = [];
      this.#ledgerView.show(this.#ledger, this.#config, this.#view.unit);
      this.#ledgerView.setSummary(layoutSummary(this.#engine, this.#config));
      this.#detailsView.show(this.#ledger, this.#view.unit);
      this.#measuredView.show(this.#ledger, this.#config, this.#view.unit, this.#ledgerView.element);
    } catch (error) {
      if (!(error instanceof MembudgetError)) throw error;
      this.#ledger = undefined;
      this.#errors = error.problems;
      this.#ledgerView.showErrors(error.problems);
      this.#ledgerView.setSummary(layoutSummary(this.#engine, this.#config));
      this.#detailsView.clear();
    }
    this.#adviceView.show(this.#ledger, this.#config, this.#view.unit);
    this.#plannerView.show(this.#config, this.#view.unit);
    this.#compareView.show(this.#config, this.#view.unit);
    this.#showFormState();
    this.#url.write(this.#config, this.#view);
    this.#toolbar.setFullLink(this.#url.fullLink);
    document.body.dataset.renderMs = (performance.now() - start).toFixed(3);
  }

  /** An advice's change (key=value&…) through the engine's field parser, then one recompute. */
  #applyQuery(query: string): void {
    let config = this.#config;
    for (const pair of query.split('&')) {
      const eq = pair.indexOf('=');
      config = this.#engine.setField(config, pair.slice(0, eq), pair.slice(eq + 1));
    }
    this.#config = config;
    this.#recompute();
  }

  #showNotices(notices: Problem[], title?: string): void {
    if (notices.length === 0) return;
    replaceChildren(
      this.#notices,
      el('strong', {}, title ?? `Ignored ${notices.length} parameter${notices.length === 1 ? '' : 's'} of the link:`),
      el('ul', {}, ...notices.map((n) => el('li', { 'data-field': n.field }, n.message))),
    );
    this.#notices.classList.add('visible');
  }
}

/** What the verdict is for: "Llama-3.1 70B · megatron · TP 8 × PP 1 × DP 32 = 256 GPUs · NVIDIA H100 80GB · training". */
export function layoutSummary(engine: Engine, config: Config): string {
  const model = config.name || engine.modelPresets.find((p) => p.id === config.model)?.label || 'custom model';
  const gpu = engine.gpuPresets.find((p) => p.id === config.gpu)?.label ?? `${config.gpu_gb} GB GPU`;
  const axes = [`TP ${config.tp}`, `PP ${config.pp}`, ...(config.cp > 1 ? [`CP ${config.cp}`] : []), `DP ${config.dp}`];
  const gpus = config.tp * config.pp * config.cp * config.dp;
  const ep = config.experts > 0 && config.ep > 1 ? ` (EP ${config.ep})` : '';
  const framework = config.method === 'membudget' && config.mode === 'training' ? [config.framework] : [];
  return [
    model,
    ...framework,
    `${axes.join(' × ')} = ${gpus.toLocaleString('en-US')} GPU${gpus === 1 ? '' : 's'}${ep}`,
    gpu,
    config.mode,
  ].join(' · ');
}

/** A wasm download that neither arrives nor fails (a sandboxed frame whose host sends no CORS header) is
 * reported after this long instead of "Loading…" forever. */
const ENGINE_LOAD_LIMIT_MS = 20_000;

async function main(): Promise<void> {
  const root = document.getElementById('app');
  if (!root) return;
  try {
    const engine = await Promise.race([
      loadEngine(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer after ${ENGINE_LOAD_LIMIT_MS / 1000} s`)), ENGINE_LOAD_LIMIT_MS),
      ),
    ]);
    new App(engine, root);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    replaceChildren(
      root,
      el(
        'div',
        { class: 'load-error', role: 'alert', id: 'load-error' },
        el('p', {}, `membudget could not start: its engine (membudget.wasm) could not be loaded (${message}).`),
        el(
          'p',
          {},
          'If this page is embedded in another site, the host must serve the .wasm to the frame: from the same origin, or with an Access-Control-Allow-Origin header when the frame is sandboxed; or embed the single-file build (membudget.html), which carries its engine inline. A blocked request (an extension, a proxy) stops it too.',
        ),
      ),
    );
  }
}

void main();
