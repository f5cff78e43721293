// The page's state in its link: the configuration in the engine's query codec, then the view keys `embed` and
// `unit`, and where the model came from when it was fetched from the Hub (`hf`, `hf_revision`, `hf_file`: the
// configuration itself is in the link's fields, so the link opens without a network; the Hub keys say which
// file at which commit it reproduces, and are dropped once the model's fields change). Read once when the page opens; written with history.replaceState once typing pauses (a write costs
// milliseconds and browsers cap its rate), and at once before the link is copied.
import type { Config, Engine, Problem } from './engine';
import type { Unit } from './format';
import { START } from './examples';
import { blobUrl, hubRefFromLink } from './hub';
import type { HubSource } from './import-view';

const URL_WRITE_DELAY_MS = 120;

/** How the page shows a configuration: embedded in another page or not, bytes in GB or GiB. */
export interface ViewState {
  embed: boolean;
  unit: Unit;
  /** The Hub file the model's fields were imported from, while they still are its. */
  hub?: HubSource;
}

/** What the link held when the page opened. */
export interface LinkState {
  config: Config;
  view: ViewState;
  /** Parameters of the link that were skipped: unknown keys, malformed or repeated values. */
  notices: Problem[];
  /** What the engine chose for the user (mode = inference without a method selects membudget). */
  chosen: Problem[];
  /** A Hub file the link names without the model's fields (a hand-written ?hf=…): offered, not fetched unasked. */
  hubToFetch?: string;
}

function viewQuery(view: ViewState, includeEmbed: boolean): string {
  const parts: string[] = [];
  if (includeEmbed && view.embed) parts.push('embed=1');
  if (view.unit === 'gib') parts.push('unit=gib');
  if (view.hub) {
    // An id's '/' stays readable; the revision is encoded as the Hub's URLs encode it (refs/pr/1 → refs%2Fpr%2F1).
    parts.push(`hf=${view.hub.id}`, `hf_revision=${encodeURIComponent(view.hub.revision)}`);
    if (view.hub.file !== 'config.json') parts.push(`hf_file=${view.hub.file}`);
  }
  return parts.join('&');
}

/** What the Hub field reads back as the same file: id@revision, or the file's link when it is not config.json. */
export function hubInput(hub: HubSource): string {
  return hub.file === 'config.json' ? `${hub.id}@${hub.revision}` : blobUrl(hub);
}

/** The Hub keys of a link, checked; a key that does not hold a Hub file is a notice, and no source is shown. */
function hubOfLink(params: URLSearchParams): { hub?: HubSource; notices: Problem[] } {
  const id = params.get('hf');
  if (id === null) {
    const stray = ['hf_revision', 'hf_file'].filter((key) => params.has(key));
    return { notices: stray.map((key) => ({ field: key, message: `${key}: skipped: the link has no hf (the model's Hub id)` })) };
  }
  try {
    const ref = hubRefFromLink(id, params.get('hf_revision'), params.get('hf_file'));
    return { hub: { id: ref.id, file: ref.file, revision: ref.revision, pinned: ref.pinned }, notices: [] };
  } catch (error) {
    return { notices: [{ field: 'hf', message: `hf: skipped: ${(error as Error).message}` }] };
  }
}

/** What a link (its query, `?…`) holds: the configuration, the view, what was skipped and chosen. */
export function readLink(engine: Engine, search: string): LinkState {
  const params = new URLSearchParams(search);
  const decoded = engine.decodeQuery(search);
  // A link states a configuration when the engine reads one in it: a field of the field table, or a parameter it
  // skips with a notice (an unknown key, a malformed one). The view's keys and the Hub's it passes over, so that a
  // link of those alone (or none) opens the newcomer's start, not the engine's defaults (the chapter's generic
  // example, one click away among the examples); a new view key is the engine's (isViewKey) alone.
  const statesConfig = [...params.keys()].some((key) => engine.fields.some((f) => f.key === key)) || decoded.notices.length > 0;
  const { config, notices, chosen } = statesConfig ? decoded : engine.decodeQuery(START.query);
  const hub = hubOfLink(params);
  // A Hub source is the model's fields' provenance: with no fields in the link it would claim what is not shown.
  const stated = hub.hub && statesConfig ? hub.hub : undefined;
  return {
    config,
    view: { embed: params.get('embed') === '1', unit: params.get('unit') === 'gib' ? 'gib' : 'gb', hub: stated },
    notices: [...notices, ...hub.notices],
    chosen: chosen ?? [],
    hubToFetch: hub.hub && !statesConfig ? hubInput(hub.hub) : undefined,
  };
}

export class UrlState {
  readonly #engine: Engine;
  /** What the next write will say, kept as it was given: its query is encoded only when the link is written. */
  #next: { config: Config; view: ViewState } | undefined;
  #pending: string | undefined;
  #timer: number | undefined;
  #fullLink = location.pathname;
  /** Told the full calculator's link each time the link is written (the embed's "open full"). */
  readonly #onWritten: (fullLink: string) => void;

  constructor(engine: Engine, onWritten: (fullLink: string) => void = () => {}) {
    this.#engine = engine;
    this.#onWritten = onWritten;
  }

  /** The configuration and the view of the page's link. */
  read(): LinkState {
    return readLink(this.#engine, location.search);
  }

  /**
   * Writes the link once typing pauses (flush writes it at once). The engine's query is a round trip through its
   * decoder (membudget/model/query.hpp), a quarter of a field change's time: it is made when the link is written,
   * once per pause, not on every keystroke.
   */
  write(config: Config, view: ViewState): void {
    this.#next = { config, view: { ...view } };
    if (this.#timer === undefined) this.#timer = window.setTimeout(() => this.flush(), URL_WRITE_DELAY_MS);
  }

  /** The links of the configuration given last to write(), made now. */
  #encode(): void {
    const next = this.#next;
    if (next === undefined) return;
    this.#next = undefined;
    // The engine's defaults encode as nothing, which would open the start: name their model instead.
    const query = this.#engine.encodeQuery(next.config) || `model=${encodeURIComponent(next.config.model)}`;
    const withView = (embed: boolean) => {
      const full = [query, viewQuery(next.view, embed)].filter(Boolean).join('&');
      return `${location.pathname}${full ? `?${full}` : ''}`;
    };
    this.#fullLink = withView(false);
    this.#pending = withView(true);
  }

  /** Writes a pending link now. */
  flush(): void {
    if (this.#timer !== undefined) window.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#encode();
    const url = this.#pending;
    if (url === undefined) return;
    this.#pending = undefined;
    if (url !== `${location.pathname}${location.search}`) history.replaceState(null, '', url);
    this.#onWritten(this.#fullLink);
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
    this.#next = undefined;
    this.#pending = undefined;
  }

  /** The page's link as it stands, with any pending write written first. */
  current(): string {
    this.flush();
    return location.href;
  }
}
