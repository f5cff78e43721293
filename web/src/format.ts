// Presentation of the engine's numbers: units and exports. No arithmetic beyond unit conversion.
import type { Config, Ledger, Verdict } from './engine';

export type Unit = 'gb' | 'gib';

export const UNIT_BYTES: Record<Unit, number> = { gb: 1e9, gib: 2 ** 30 };
export const UNIT_LABEL: Record<Unit, string> = { gb: 'GB', gib: 'GiB' };
export const UNIT_MEANING: Record<Unit, string> = { gb: 'GB = 10⁹ bytes', gib: 'GiB = 2³⁰ bytes' };

export const VERDICT_TEXT: Record<Verdict, string> = {
  fits: 'Fits',
  tight: 'Tight',
  does_not_fit: 'Does not fit',
};

/**
 * A number as `new Intl.NumberFormat('en-US', { minimumFractionDigits, maximumFractionDigits })` writes it, without
 * Intl: the first Intl number formatter a page makes loads ICU's number data, 22–33 ms on the main thread of a fresh
 * Chromium renderer on this project's machine, and the first ledger waited for it (issue 31). ICU rounds, half away
 * from zero, the shortest decimal that reads back as the number (what `String(x)` writes, also for integers beyond
 * 2^53); the integer part is grouped by threes with commas, and a negative number or -0 keeps its minus.
 * tests/web/format.test.ts checks it against Intl on edge cases and random numbers.
 */
export function groupedDecimal(value: number, minimumFractionDigits: number, maximumFractionDigits: number): string {
  if (Number.isNaN(value)) return 'NaN';
  const minus = value < 0 || Object.is(value, -0) ? '-' : '';
  const magnitude = Math.abs(value);
  if (magnitude === Infinity) return `${minus}∞`;
  // The decimal digits and where the point falls in them (0.00123: "123", point -2; 1.5e21: "15", point 22).
  const text = String(magnitude);
  const e = text.indexOf('e');
  const mantissa = e < 0 ? text : text.slice(0, e);
  const dot = mantissa.indexOf('.');
  let digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  let point = (dot < 0 ? mantissa.length : dot) + (e < 0 ? 0 : Number(text.slice(e + 1)));
  let zeros = 0;
  while (zeros < digits.length - 1 && digits.charCodeAt(zeros) === 48 /* '0' */) zeros++;
  digits = digits.slice(zeros);
  point -= zeros;
  // The number as an integer count of 10^-maximumFractionDigits, rounded at the first digit dropped.
  const keep = point + maximumFractionDigits;
  let units = keep <= 0 ? '' : digits.slice(0, keep).padEnd(keep, '0');
  if (keep >= 0 && keep < digits.length && digits.charCodeAt(keep) >= 53 /* '5' */) {
    let i = units.length - 1;
    while (i >= 0 && units[i] === '9') i--;
    units =
      i < 0 ? `1${'0'.repeat(units.length)}` : `${units.slice(0, i)}${String(Number(units[i]) + 1)}${'0'.repeat(units.length - i - 1)}`;
  }
  units = units.padStart(maximumFractionDigits + 1, '0');
  const split = units.length - maximumFractionDigits;
  let start = 0;
  while (start < split - 1 && units.charCodeAt(start) === 48) start++;
  let end = units.length;
  while (end > split + minimumFractionDigits && units.charCodeAt(end - 1) === 48) end--;
  // The integer part grouped by threes: 1234567 → 1,234,567.
  let grouped = '';
  for (let at = start, next = start + ((split - start) % 3 || 3); at < split; at = next, next += 3)
    grouped += (grouped ? ',' : '') + units.slice(at, next);
  return `${minus}${grouped}${end > split ? `.${units.slice(split, end)}` : ''}`;
}

/** A byte count in the unit, two decimals; never NaN, Infinity or undefined on the page. */
export function formatBytes(bytes: number, unit: Unit): string {
  if (!Number.isFinite(bytes)) return '—';
  return groupedDecimal(bytes / UNIT_BYTES[unit], 2, 2);
}

/** A count with thousands separators (Ψ = 70,000,000,000). */
export function formatCount(value: number): string {
  return Number.isFinite(value) ? groupedDecimal(value, 0, 0) : '—';
}

export function formatWithUnit(bytes: number, unit: Unit): string {
  return `${formatBytes(bytes, unit)} ${UNIT_LABEL[unit]}`;
}

/** Days to the tenth, with thousands separators (2,121.7), as the CLI writes a run's days. */
export function formatDays(days: number): string {
  return Number.isFinite(days) ? groupedDecimal(Math.round(days * 10) / 10, 1, 1) : '—';
}

/** One decimal, rounded half up at the tenth of a percent, as the engine's percentText (CLI tables, advice). */
export function formatPercentTenth(fraction: number): string {
  if (!Number.isFinite(fraction)) return '—';
  return `${(Math.round(fraction * 1000) / 10).toFixed(1)}%`;
}

/** A duration: milliseconds under a second, else seconds, three significant digits (0.812 s, 45.3 ms, 12.4 s). */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 1) return `${(seconds * 1000).toPrecision(3)} ms`;
  return `${seconds.toPrecision(3)} s`;
}

/**
 * An estimate's band after its value, " (low–high)", each end as `format` writes it (the CLI's bandText); a unit both
 * ends share is written once, after the high end: " (8.11–9.80 s)".
 */
export function band(low: number, high: number, format: (x: number) => string): string {
  const a = format(low),
    b = format(high);
  const unit = /[^\d]*$/.exec(b)![0];
  return ` (${unit && a.endsWith(unit) ? a.slice(0, -unit.length) : a}–${b})`;
}

export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '—';
  return `${groupedDecimal(fraction * 100, 0, 2)}%`;
}

/** One sentence: the verdict and the margin that decides it. */
export function verdictSentence(ledger: Ledger, unit: Unit): string {
  const u = (bytes: number) => formatWithUnit(bytes, unit);
  switch (ledger.verdict) {
    case 'fits':
      return `${u(ledger.usableBytes - ledger.totalBytes)} below the headroom line; ${u(ledger.capacityBytes - ledger.totalBytes)} left of the capacity`;
    case 'tight':
      // Under the line but inside the error band: a run as far over the prediction as measured runs like it would pass it.
      if (ledger.totalBytes <= ledger.usableBytes)
        return `${u(ledger.usableBytes - ledger.totalBytes)} below the headroom line, inside the error band (a run ${formatPercentTenth(-ledger.errorBand.lowError / (1 + ledger.errorBand.lowError))} over the prediction, as measured runs like it have been, would pass it)`;
      return `${u(ledger.totalBytes - ledger.usableBytes)} over the headroom line, ${u(ledger.capacityBytes - ledger.totalBytes)} under the capacity`;
    case 'does_not_fit':
      return `${u(ledger.totalBytes - ledger.capacityBytes)} over the capacity`;
  }
}

function cell(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ');
}

/** The checklist as a Markdown table, to paste into a design doc. */
/** What the page and the Markdown export say beside the reserved figure. */
export const RESERVED_NOTE =
  'what the caching allocator reserves at the peak (torch.cuda.max_memory_reserved): the allocations in 2 MiB and 20 MiB segments, without the allowances; compare with nvidia-smi less the CUDA context';

/** The method, and for membudget's own training model the framework whose behaviour it follows (docs/frameworks.md). */
export function methodText(ledger: Ledger, config: Config): string {
  return ledger.method === 'membudget' && config.mode === 'training' ? `${ledger.method}, framework ${config.framework}` : ledger.method;
}

export function ledgerMarkdown(ledger: Ledger, config: Config, unit: Unit, link: string): string {
  const label = UNIT_LABEL[unit];
  const rows = ledger.lines.map(
    (line) =>
      `| ${cell(line.label)} | ${cell(line.formula)} = ${cell(line.substituted)} | ${formatBytes(line.bytes, unit)} | ${cell(line.note)} |`,
  );
  const lines = [
    `**${VERDICT_TEXT[ledger.verdict]}**: ${formatWithUnit(ledger.totalBytes, unit)} per GPU against ${formatWithUnit(ledger.capacityBytes, unit)} ` +
      `(${formatWithUnit(ledger.usableBytes, unit)} usable after ${formatPercent(config.headroom)} headroom). ` +
      `Model ${cell(config.name || config.model)}, Ψ = ${formatCount(ledger.parameterCount)}; ` +
      `TP=${config.tp} PP=${config.pp} DP=${config.dp} CP=${config.cp} SP=${config.sp ? 'on' : 'off'} ZeRO-${config.zero}; ` +
      `b_μ=${config.mb} s=${config.seq} ckpt=${cell(config.ckpt)}; GPU ${cell(config.gpu)}; method ${cell(methodText(ledger, config))}.`,
    '',
    `| Component | Formula | Value (${label}) | Notes |`,
    '|---|---|---:|---|',
    ...rows,
    `| **Total** | sum | **${formatBytes(ledger.totalBytes, unit)}** | must be < ${formatBytes(ledger.capacityBytes, unit)} (${formatBytes(ledger.usableBytes, unit)} usable) |`,
  ];
  if (ledger.reservedBytes > 0) {
    lines.push(`| Reserved | caching allocator | ${formatBytes(ledger.reservedBytes, unit)} | ${RESERVED_NOTE} |`);
  }
  if (ledger.warnings.length > 0) {
    lines.push('', 'Warnings:', ...ledger.warnings.map((w) => `- ${cell(w.message)}`));
  }
  lines.push('', `${UNIT_MEANING[unit]}. [Open in membudget](${link})`);
  return lines.join('\n');
}

/**
 * How the serving line opens: the steady state's requests in flight and their lengths, or, under a benchmark
 * (num_prompts set), its load: the prompts, how they arrive, at most how many in flight, the lengths' spread.
 */
export function servingOpening(sv: NonNullable<Ledger['servingTime']>): string {
  const lengths = `${formatCount(sv.inputTokens)} in / ${formatCount(sv.outputTokens)} out`;
  const assumed = sv.lengthsAssumed ? ', seq split in half: set input and output tokens' : '';
  const b = sv.benchmark;
  if (b === null) return `Estimated serving (${formatCount(sv.concurrency)} requests of ${lengths}${assumed}): `;
  const spread =
    b.lengthRangeRatio < 1
      ? ` drawn from ${b.lengthRangeRatio}× (means ${formatCount(Math.round(b.meanInputTokens))} / ${formatCount(Math.round(b.meanOutputTokens))})`
      : '';
  const arrival = b.requestRate > 0 ? `${b.requestRate} requests/s` : 'all sent at once';
  const admitted = b.admittedSequences > 0 ? ` (${formatCount(b.admittedSequences)} at once: all the KV cache holds)` : '';
  return `Estimated benchmark (${formatCount(b.prompts)} prompts of ${lengths}${spread}${assumed}, ${arrival}, at most ${formatCount(sv.concurrency)} in flight${admitted}): `;
}
