/** One sample of the Prometheus text exposition format: a metric name, its labels and its value. */
export interface Sample {
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', '"': '"', n: '\n' };

/**
 * The samples of the metrics named `names` in a text exposition (format 0.0.4, what prom-client writes):
 * comment and blank lines are skipped, as are the samples of other metrics, before their labels are read.
 * Label values are unescaped (`\\`, `\"`, `\n`); a timestamp after the value is ignored. A sample line of
 * a wanted metric that does not parse throws, naming its line, so a changed format is noticed.
 */
export function parseSamples(text: string, names: ReadonlySet<string>): Sample[] {
  const samples: Sample[] = [];
  let lineNo = 0;
  for (const line of text.split('\n')) {
    lineNo++;
    if (line === '' || line.startsWith('#')) continue;
    const name = NAME.exec(line)?.[0];
    if (name === undefined || !names.has(name)) continue;
    const sample = parseSample(line, name);
    if (!sample) throw new Error(`line ${lineNo}: not a sample: ${line.slice(0, 200)}`);
    samples.push(sample);
  }
  return samples;
}

function parseSample(line: string, name: string): Sample | undefined {
  const labels: Record<string, string> = {};
  let i = name.length;
  if (line[i] === '{') {
    i++;
    for (;;) {
      while (line[i] === ' ') i++;
      if (line[i] === '}') break;
      LABEL_NAME.lastIndex = i;
      const label = LABEL_NAME.exec(line)?.[0];
      if (label === undefined) return undefined;
      i += label.length;
      if (line[i] !== '=' || line[i + 1] !== '"') return undefined;
      i += 2;
      let value = '';
      for (; i < line.length && line[i] !== '"'; i++) {
        const char = line[i] as string;
        if (char !== '\\') {
          value += char;
          continue;
        }
        const escaped = ESCAPES[line[i + 1] ?? ''];
        if (escaped === undefined) return undefined;
        value += escaped;
        i++;
      }
      if (line[i] !== '"') return undefined;
      labels[label] = value;
      i++;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') return undefined;
    }
    i++;
  }
  const [value, timestamp, extra] = line.slice(i).trim().split(/\s+/);
  if (extra !== undefined || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) return undefined;
  const number = parseValue(value ?? '');
  return number === undefined ? undefined : { name, labels, value: number };
}

function parseValue(text: string): number | undefined {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const n = Number(text);
  return text !== '' && !Number.isNaN(n) ? n : undefined;
}
