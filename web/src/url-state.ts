// The page's state in its link: the configuration in the engine's query codec, then the view keys `embed` and
// `unit`. Read once when the page opens; written with history.replaceState once typing pauses (a write costs
// milliseconds and browsers cap its rate), and at once before the link is copied.
import type { Config, Engine, Problem } from './engine';
import type { Unit } from './format';
import { START, VIEW_KEYS } from './examples';

const URL_WRITE_DELAY_MS = 120;

/** How the page shows a configuration: embedded in another page or not, bytes in GB or GiB. */
export interface ViewState {
  embed: boolean;
  unit: Unit;
}

/** What the link held when the page opened. */
export interface LinkState {
  config: Config;
  view: ViewState;
  /** Parameters of the link that were skipped: unknown keys, malformed or repeated values. */
  notices: Problem[];
  /** What the engine chose for the user (mode = inference without a method selects membudget). */
  chosen: Problem[];
}

function viewQuery(view: ViewState, includeEmbed: boolean): string {
  const parts: string[] = [];
  if (includeEmbed && view.embed) parts.push('embed=1');
  if (view.unit === 'gib') parts.push('unit=gib');
  return parts.join('&');
}

export class UrlState {
  readonly #engine: Engine;
  #pending: string | undefined;
  #timer: number | undefined;
  #fullLink = location.pathname;

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /** The configuration and the view of the page's link. */
  read(): LinkState {
    const params = new URLSearchParams(location.search);
    // A link that states no configuration (none, or only the view) opens the newcomer's start, not the engine's
    // defaults (the chapter's generic example, one click away among the examples).
    const statesConfig = [...params.keys()].some((key) => !VIEW_KEYS.includes(key));
    const decoded = this.#engine.decodeQuery(statesConfig ? location.search : START.query);
    return {
      config: decoded.config,
      view: { embed: params.get('embed') === '1', unit: params.get('unit') === 'gib' ? 'gib' : 'gb' },
      notices: decoded.notices,
      chosen: decoded.chosen ?? [],
    };
  }

  /** Writes the link once typing pauses (flush writes it at once). */
  write(config: Config, view: ViewState): void {
    // The engine's defaults encode as nothing, which would open the start: name their model instead.
    const query = this.#engine.encodeQuery(config) || `model=${encodeURIComponent(config.model)}`;
    const withView = (embed: boolean) => {
      const full = [query, viewQuery(view, embed)].filter(Boolean).join('&');
      return `${location.pathname}${full ? `?${full}` : ''}`;
    };
    this.#fullLink = withView(false);
    this.#pending = withView(true);
    if (this.#timer === undefined) this.#timer = window.setTimeout(() => this.flush(), URL_WRITE_DELAY_MS);
  }

  /** The link of the last configuration written, without `embed`: the full calculator's (the embed's "open full"). */
  get fullLink(): string {
    return this.#fullLink;
  }

  /** Writes a pending link now. */
  flush(): void {
    if (this.#timer !== undefined) window.clearTimeout(this.#timer);
    this.#timer = undefined;
    const url = this.#pending;
    if (url !== undefined && url !== `${location.pathname}${location.search}`) history.replaceState(null, '', url);
    this.#pending = undefined;
  }

  /**
   * A new history entry for what comes next (a planner row loaded): the current state is kept as its own entry, so
   * Back returns to it.
   */
  push(): void {
    this.flush();
    history.pushState(null, '', location.href);
  }

  /** Drops a write not yet made (Back moved to another entry: it must not be overwritten). */
  discard(): void {
    if (this.#timer !== undefined) window.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
  }

  /** The page's link as it stands, with any pending write written first. */
  current(): string {
    this.flush();
    return location.href;
  }
}
