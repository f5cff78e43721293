// The calculator page's composition root: it builds the views, places them, and wires them together. Every change
// of configuration, wherever it comes from (the link, the form, an import, a planner row, an advice, a measured
// file), goes through setConfig, which recomputes and re-renders at once; a configuration the engine refuses goes
// through showProblems. The state lives in the link (url-state.ts), and nothing leaves the browser.
import './styles.css';
import { loadEngine, MembudgetError, type Config, type Engine, type Ledger, type Problem } from './engine';
import { el, replaceChildren } from './dom';
import { Form } from './form';
import { CompareView } from './compare-view';
import { DetailsView } from './details-view';
import { hubFileLink, ImportView, type HubSource } from './import-view';
import { LedgerView, layoutSummary } from './ledger-view';
import { MeasuredView } from './measured-view';
import { loadErrorView, NoticesView, startErrorView } from './notices-view';
import { EXAMPLES } from './examples';
import { examplesRow, footer, masthead, skipLink, startStrip } from './page-chrome';
import { AdviceView } from './advice-view';
import { PlannerView } from './planner-view';
import { ToolbarView } from './toolbar-view';
import { UrlState, type ViewState } from './url-state';

/** The panels below the ledger: not needed for its first frame. */
interface BelowPanels {
  measured: MeasuredView;
  details: DetailsView;
  planner: PlannerView;
  compare: CompareView;
}

class App {
  readonly #engine: Engine;
  readonly #url: UrlState;
  readonly #view: ViewState;
  #config: Config;
  #ledger: Ledger | undefined;
  #errors: Problem[] = [];
  /** What an imported file did not say: the field, why, and the value it was computed with. */
  #assumed: (Problem & { value: string })[] = [];
  #form: Form | undefined;
  /** The model fields' texts when the Hub source (view.hub) was set: the source holds while they do. */
  #hubModel: string | undefined;
  /** Which Hub file the model's fields are, with a link to it (hidden without one). */
  readonly #hubSource = el('p', { id: 'hub-source', class: 'hub-source', hidden: true });
  #hubShown: HubSource | undefined;
  // Holds the form's column from the first frame, so that the ledger does not move when the form arrives.
  readonly #formSlot = el('div', { class: 'form-slot' });
  readonly #notices = new NoticesView();
  readonly #ledgerView: LedgerView;
  readonly #adviceView: AdviceView;
  /** The panels below the ledger, built once the ledger is on screen (#panels). */
  #below: BelowPanels | undefined;
  readonly #toolbar: ToolbarView;

  constructor(engine: Engine, root: HTMLElement) {
    this.#engine = engine;
    this.#ledgerView = new LedgerView(engine);
    // The embed's "open full" follows the link as it is written.
    this.#url = new UrlState(engine, (fullLink) => this.#toolbar.setFullLink(fullLink));
    const link = this.#url.read();
    this.#view = link.view;
    this.#config = link.config;
    this.#hubModel = link.view.hub && this.#modelTexts(engine.fieldTexts(link.config));
    this.#adviceView = new AdviceView(
      (query) => {
        // The change as the engine evaluated it: all its keys at once, through the link's codec.
        const applied = this.#engine.applyQuery(this.#config, query);
        this.#setConfig(applied.config, applied.chosen);
      },
      (fitting) => this.#ledgerView.setWays(fitting),
    );
    // The sticky answer covers the top of the page: whatever the browser scrolls into view (a focused field, its
    // help) lands below it, whatever height the answer has at this width.
    new ResizeObserver(() => {
      const sticky = getComputedStyle(this.#ledgerView.answer).position === 'sticky';
      document.documentElement.style.scrollPaddingTop = sticky ? `${this.#ledgerView.answer.offsetHeight + 8}px` : '';
    }).observe(this.#ledgerView.answer);
    // Back and Forward between the entries a loaded row made: the entry's link is the configuration.
    window.addEventListener('popstate', () => {
      this.#url.discard();
      const back = this.#url.read();
      this.#assumed = [];
      this.#view.hub = back.view.hub;
      this.#hubModel = back.view.hub && this.#modelTexts(this.#engine.fieldTexts(back.config));
      this.#notices.show(back.notices);
      this.#setConfig(back.config, back.chosen);
    });
    // A refused configuration's problems link to their fields: open the field's group and focus it.
    this.#ledgerView.answer.addEventListener('click', (event) => {
      // "N ways to make it fit": to the advice, its first change focused, the link (and its query) untouched.
      if ((event.target as Element).closest('#ways')) {
        event.preventDefault();
        this.#adviceView.element.scrollIntoView({ block: 'start' });
        this.#adviceView.element.querySelector<HTMLElement>('.advice-apply')?.focus({ preventScroll: true });
        return;
      }
      const link = (event.target as Element).closest('a[data-field]');
      if (!link) return;
      event.preventDefault();
      const key = link.getAttribute('data-field')!;
      this.#form?.reveal(key);
      document.getElementById(`f-${key}`)?.focus();
    });
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

    // The importer comes first on the page (a newcomer's first action), with the examples inside it.
    const examples = examplesRow(EXAMPLES, (example) => {
      const decoded = this.#engine.decodeQuery(example.query);
      this.#assumed = [];
      this.#takeStep(decoded.config, decoded.chosen ?? []);
    });
    const importer = new ImportView(
      this.#engine,
      () => this.#config,
      (config, assumed, hub) => {
        // What the file does not say holds the value it was computed with until the user sets it.
        const texts = this.#engine.fieldTexts(config);
        this.#assumed = assumed.map((a) => ({ ...a, value: texts[a.field as keyof Config] }));
        // Any other import replaces the Hub source; a fetched file becomes it.
        this.#view.hub = hub;
        this.#hubModel = hub && this.#modelTexts(texts);
        this.#setConfig(config);
      },
      examples,
    );
    document.body.classList.toggle('embed', this.#view.embed);
    const whatFits = el('button', { id: 'what-fits', type: 'button', class: 'what-fits' }, 'What fits on my GPUs?');
    whatFits.addEventListener('click', () => this.#panels().planner.open());
    replaceChildren(
      root,
      skipLink(),
      masthead(this.#toolbar.openFull),
      startStrip(importer.element, whatFits),
      this.#hubSource,
      this.#notices.element,
      el(
        'main',
        { class: 'layout' },
        this.#ledgerView.answer,
        this.#formSlot,
        el('div', { class: 'results' }, this.#toolbar.element, this.#ledgerView.element, this.#adviceView.element, this.#toolbar.exported),
      ),
      footer(),
      this.#toolbar.toast,
    );
    this.#notices.show(link.notices);
    if (link.hubToFetch) importer.offerHub(link.hubToFetch);
    this.#setConfig(link.config, link.chosen);
    // The answer first (issue 31): the form (33 controls) and the panels below the ledger are built, and the link
    // written, once the ledger has been painted. scripts/measure-budgets.mjs reads these marks: in the DOM, then on
    // screen.
    performance.mark('membudget-ledger-rendered');
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.mark('membudget-ledger-on-screen');
        this.#panels();
        this.#url.flush();
        this.#buildForm(); // the page is ready (data-ready) with its link written
      }, 0),
    );
  }

  #buildForm(): void {
    this.#form = new Form(this.#engine, (key, text) => this.#onInput(key, text));
    this.#formSlot.replaceWith(this.#form.element);
    this.#showFormState();
    document.body.dataset.ready = 'true';
  }

  /**
   * The panels below the ledger (the measured run, the stages and phases, the planner, the methods compared), built
   * on first use: after the first ledger's frame, or earlier when the user asks for one ("What fits on my GPUs?").
   * Each then follows every recompute.
   */
  #panels(): BelowPanels {
    if (this.#below) return this.#below;
    const below: BelowPanels = {
      // The optional "measured" column of the checklist; its file may carry a configuration to load.
      measured: new MeasuredView(this.#engine, (config) => this.#setConfig(config)),
      details: new DetailsView(),
      planner: new PlannerView(this.#engine, (config) => {
        this.#ledgerView.element.scrollIntoView({ behavior: 'smooth', block: 'start' });
        this.#takeStep(config);
      }),
      compare: new CompareView(),
    };
    this.#below = below;
    // In the results' column: the measured run before the advice, the rest after it.
    this.#adviceView.element.before(below.measured.element);
    this.#adviceView.element.after(below.details.element, below.planner.element, below.compare.element);
    this.#showPanels();
    return below;
  }

  /** The panels below the ledger show the configuration (once they are built). */
  #showPanels(): void {
    const below = this.#below;
    if (!below) return;
    if (this.#ledger) {
      below.details.show(this.#ledger, this.#view.unit);
      below.measured.show(this.#ledger, this.#config, this.#view.unit, this.#ledgerView.element);
    } else below.details.clear();
    below.planner.show(this.#config, this.#view.unit);
    below.compare.show(this.#config, this.#view.unit);
  }

  /**
   * The one way a configuration changes: kept, what the engine chose for the user said (mode = inference selects
   * method membudget), and everything recomputed.
   */
  #setConfig(config: Config, chosen: Problem[] = []): void {
    this.#config = config;
    this.#notices.show(chosen, 'Note:');
    this.#recompute();
  }

  /**
   * The one way problems are shown: a configuration the engine refuses (or text it cannot read) has no numbers, and
   * its problems stand in the verdict and, with `atFields`, next to their fields (a recompute shows the fields'
   * itself, with the TP values the model allows).
   */
  #showProblems(problems: Problem[], atFields = false): void {
    this.#ledger = undefined;
    this.#errors = problems;
    this.#ledgerView.showErrors(problems, (key) => this.#labelOf(key));
    this.#ledgerView.setSummary(layoutSummary(this.#engine, this.#config));
    this.#below?.details.clear();
    if (atFields) this.#form?.showProblems(problems, []);
  }

  /** A configuration loaded as a step the user can take back (a planner row, an example): Back returns to the one
   * before it; the verdict takes the focus. */
  #takeStep(config: Config, chosen: Problem[] = []): void {
    this.#url.push();
    this.#setConfig(config, chosen);
    this.#ledgerView.focusVerdict();
  }

  /** A field's label in the configuration shown (mb in inference: concurrent sequences); undefined for no field. */
  #labelOf(key: string): string | undefined {
    return this.#engine.fieldStates(this.#config).labels[key as keyof Config] ?? this.#engine.fields.find((f) => f.key === key)?.label;
  }

  /** The form shows the configuration and its problems (Form.show leaves the control being typed in alone). */
  #showFormState(texts = this.#engine.fieldTexts(this.#config)): void {
    if (!this.#form) return;
    // Every field's text (the derived placeholders and the GB fields' unit follow other fields); the control being
    // typed in is left alone (Form.show).
    this.#form.show(texts, this.#engine.fieldStates(this.#config), this.#view.unit);
    // A TP the model's heads do not allow: offer the ones they do.
    const tpError = this.#errors.some((e) => e.field === 'tp');
    const offer = tpError
      ? { key: 'tp', values: this.#engine.validTensorParallel(this.#config).slice(0, 16), pick: (tp: number) => this.#pick('tp', tp) }
      : undefined;
    const assumed = this.#assumed.map((a) => ({
      field: a.field,
      message: `Needs your input: the imported file does not say (${a.message}); computed with ${a.field} = ${a.value}`,
    }));
    this.#form.showProblems(this.#errors, [...assumed, ...(this.#ledger?.warnings ?? [])], offer);
    this.#form.markAssumed(new Set(this.#assumed.map((a) => a.field)));
  }

  /** A value picked from an offer: set, shown in the form, recomputed. */
  #pick(key: string, value: number): void {
    this.#setConfig(this.#engine.setField(this.#config, key, String(value)));
    document.getElementById(`f-${key}`)?.focus();
  }

  #onInput(key: string, text: string): void {
    this.#assumed = this.#assumed.filter((a) => a.field !== key); // answered
    try {
      const parsed = this.#engine.setFieldWithNotices(this.#config, key, text);
      // The engine may change another field (the method for inference): setConfig says so and rewrites the form.
      this.#setConfig(parsed.config, parsed.chosen);
    } catch (error) {
      if (!(error instanceof MembudgetError)) throw error;
      // Text the engine cannot read (a letter in a number): not computed, no numbers, the message at the field;
      // the configuration and the link stay what they were.
      this.#showProblems(error.problems, true);
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
    } catch (error) {
      if (!(error instanceof MembudgetError)) throw error;
      this.#showProblems(error.problems);
    }
    // Every field's text, once: for the assumed values, the Hub source and the form.
    const texts = this.#engine.fieldTexts(this.#config);
    // An assumed value holds until its field changes (typed, a planner row, an advice); then it is the user's.
    if (this.#assumed.length > 0) this.#assumed = this.#assumed.filter((a) => texts[a.field as keyof Config] === a.value);
    this.#ledgerView.setAssumed(this.#assumed.map((a) => ({ field: a.field, label: this.#labelOf(a.field) ?? a.field, value: a.value })));
    this.#adviceView.show(this.#ledger, this.#config, this.#view.unit);
    this.#showPanels();
    this.#showFormState(texts);
    this.#toolbar.follow(this.#engine.fieldStates(this.#config).launchFormat);
    // The Hub source holds while the model's fields are the file's: another model, or a field changed, drops it.
    if (this.#view.hub && this.#errors.length === 0 && this.#modelTexts(texts) !== this.#hubModel) this.#view.hub = undefined;
    this.#showHubSource();
    // A configuration the engine refuses never reaches the link: it stays at the last valid state.
    if (this.#errors.length === 0) {
      this.#url.write(this.#config, this.#view);
    }
    document.body.dataset.renderMs = (performance.now() - start).toFixed(3);
  }

  /** The model group's field texts (of Engine.fieldTexts), as one string to compare. */
  #modelTexts(texts: Record<string, string>): string {
    return JSON.stringify(this.#engine.fields.filter((f) => f.group === 'model').map((f) => texts[f.key as keyof Config]));
  }

  #showHubSource(): void {
    const hub = this.#view.hub;
    if (hub === this.#hubShown) return; // the same source (or none) as the last render
    this.#hubShown = hub;
    this.#hubSource.hidden = !hub;
    if (!hub) return replaceChildren(this.#hubSource);
    replaceChildren(this.#hubSource, `Model: ${hub.file} of ${hub.id} on huggingface.co, at `, hubFileLink(hub), '.');
  }
}

/** A wasm download that neither arrives nor fails (a sandboxed frame whose host sends no CORS header) is
 * reported after this long instead of "Loading…" forever. */
const ENGINE_LOAD_LIMIT_MS = 20_000;

async function main(): Promise<void> {
  const root = document.getElementById('app');
  if (!root) return;
  let engine: Engine | undefined;
  try {
    engine = await Promise.race([
      loadEngine(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer after ${ENGINE_LOAD_LIMIT_MS / 1000} s`)), ENGINE_LOAD_LIMIT_MS),
      ),
    ]);
    new App(engine, root);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Only a failed load is the engine's (or its host's); anything after it is the page's own fault, said as such.
    replaceChildren(root, engine ? startErrorView(message) : loadErrorView(message));
  }
}

void main();
