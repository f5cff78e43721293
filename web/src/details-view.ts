// What lies behind the peak: every pipeline stage (a strip, the peak one marked), the phases of a step,
// the host memory of offloading, and the activation tensors of the peak stage (built only when opened).
import type { Ledger } from './engine';
import { el, replaceChildren, setText, svg } from './dom';
import { formatBytes, formatCount, formatWithUnit, UNIT_LABEL, type Unit } from './format';

function setHidden(node: HTMLElement, hidden: boolean): void {
  if (node.hidden !== hidden) node.hidden = hidden;
}

const STRIP_WIDTH = 1000;
const STRIP_HEIGHT = 56;

export class DetailsView {
  readonly element: HTMLElement;
  readonly #stages = el('figure', { id: 'stages', class: 'stages' });
  readonly #phases = el('p', { id: 'phases', class: 'phases' });
  readonly #tensors = el('details', { id: 'tensors', class: 'tensors' });
  readonly #tensorSummary = el('summary');
  readonly #tensorBody = el('div');
  #last: { ledger: Ledger; unit: Unit } | undefined;

  constructor() {
    this.#tensors.append(this.#tensorSummary, this.#tensorBody);
    this.#tensors.addEventListener('toggle', () => this.#renderTensors());
    this.element = el('div', { class: 'details' }, this.#phases, this.#stages, this.#tensors);
  }

  show(ledger: Ledger, unit: Unit): void {
    this.#last = { ledger, unit };
    this.#showStages(ledger, unit);
    this.#showPhases(ledger, unit);
    setHidden(this.#tensors, ledger.tensors.length === 0);
    setText(this.#tensorSummary, `Activation tensors on stage ${ledger.peakStage} (${ledger.tensors.length})`);
    if (this.#tensors.open) this.#renderTensors();
    // Nothing to show (the chapter's single-stage ledger): no empty box.
    setHidden(this.element, this.#phases.hidden && this.#stages.hidden && this.#tensors.hidden);
  }

  clear(): void {
    this.#last = undefined;
    replaceChildren(this.#stages);
    replaceChildren(this.#phases);
    this.#tensors.hidden = true;
    this.element.hidden = true;
  }

  #showStages(ledger: Ledger, unit: Unit): void {
    if (ledger.stages.length <= 1) {
      if (!this.#stages.hidden) {
        replaceChildren(this.#stages);
        this.#stages.hidden = true;
      }
      return;
    }
    this.#stages.hidden = false;
    const count = ledger.stages.length;
    const scale = Math.max(ledger.capacityBytes, ...ledger.stages.map((s) => s.totalBytes));
    const gap = count > 64 ? 0 : 2;
    const width = STRIP_WIDTH / count;
    const chart = svg('svg', {
      viewBox: `0 0 ${STRIP_WIDTH} ${STRIP_HEIGHT}`,
      role: 'img',
      'aria-label': `Memory of each of the ${count} pipeline stages`,
    });
    const capacityY = STRIP_HEIGHT - (ledger.capacityBytes / scale) * STRIP_HEIGHT;
    for (const stage of ledger.stages) {
      const height = (stage.totalBytes / scale) * STRIP_HEIGHT;
      const over = stage.totalBytes > ledger.capacityBytes ? ' over' : stage.totalBytes > ledger.usableBytes ? ' tight' : '';
      chart.appendChild(
        svg(
          'rect',
          {
            class: `stage${stage.index === ledger.peakStage ? ' peak' : ''}${over}`,
            x: stage.index * width + gap / 2,
            y: STRIP_HEIGHT - height,
            width: Math.max(width - gap, 0.5),
            height,
            'data-stage': stage.index,
            'data-bytes': String(stage.totalBytes),
          },
          svg(
            'title',
            {},
            `Stage ${stage.index}: ${formatCount(stage.layers)} layers, ${formatCount(stage.inFlightMicrobatches)} micro-batches in flight, ${formatWithUnit(stage.totalBytes, unit)}`,
          ),
        ),
      );
    }
    chart.appendChild(svg('line', { class: 'capacity-line', x1: 0, x2: STRIP_WIDTH, y1: capacityY, y2: capacityY }));
    const peak = ledger.stages.find((s) => s.index === ledger.peakStage)!;
    const first = ledger.stages[0];
    const last = ledger.stages[count - 1];
    replaceChildren(
      this.#stages,
      chart,
      el(
        'figcaption',
        {},
        `${count} pipeline stages; the peak, stage ${peak.index} (${formatCount(peak.layers)} layers, ${formatCount(peak.inFlightMicrobatches)} in flight), decides the verdict. `,
        `First ${formatWithUnit(first.totalBytes, unit)}, last ${formatWithUnit(last.totalBytes, unit)}.`,
      ),
    );
  }

  #showPhases(ledger: Ledger, unit: Unit): void {
    const parts: string[] = [];
    if (ledger.phases.length > 0)
      parts.push(
        `Phases: ${ledger.phases.map((p) => `${p.name} ${formatWithUnit(p.totalBytes, unit)}`).join(', ')}; the peak is the ${ledger.peakPhase}.`,
      );
    if (ledger.maxSequences > 0 || ledger.maxContextTokens > 0 || ledger.lines.some((l) => l.id === 'kv_cache'))
      parts.push(
        `Fits under the headroom line: up to ${formatCount(ledger.maxSequences)} concurrent sequences of the configured length; ` +
          `with the configured number of sequences, up to ${formatCount(ledger.maxContextTokens)} tokens each.`,
      );
    if (ledger.cpuBytesPerNode > 0)
      parts.push(
        `CPU memory per node for what is offloaded: ${formatWithUnit(ledger.cpuBytesPerNode, unit)} (` +
          ledger.cpuLines.map((l) => `${l.label} ${formatWithUnit(l.bytes, unit)}`).join(', ') +
          ').',
      );
    setText(this.#phases, parts.join(' '));
    setHidden(this.#phases, parts.length === 0);
  }

  // The sub-ledger can hold dozens of rows: it is built only while open.
  #renderTensors(): void {
    if (!this.#tensors.open || !this.#last) {
      replaceChildren(this.#tensorBody);
      return;
    }
    const { ledger, unit } = this.#last;
    const rows = ledger.tensors.map((t) =>
      el(
        'tr',
        { 'data-tensor': t.name, 'data-bytes': String(t.bytes) },
        el('th', { scope: 'row' }, t.name),
        el('td', { class: 'mono' }, t.shape),
        el('td', {}, t.dtype),
        el('td', { class: 'value' }, formatCount(Math.round(t.bytesPerCopy))),
        el('td', { class: 'value' }, formatCount(t.copies)),
        el('td', { class: 'value' }, formatBytes(t.bytes, unit)),
        el('td', { class: 'note' }, t.sharding),
      ),
    );
    replaceChildren(
      this.#tensorBody,
      el(
        'table',
        { class: 'ledger tensor-table' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...['Tensor', 'Shape', 'Type', 'Bytes per copy', 'Copies', `Total (${UNIT_LABEL[unit]})`, 'Sharding'].map((h) =>
              el('th', { scope: 'col' }, h),
            ),
          ),
        ),
        el('tbody', {}, ...rows),
      ),
    );
  }
}
