// Typed builders of the chart's Grafana dashboards: every object is checked by tsc against @grafana/schema's
// Dashboard, Panel and VariableModel (the time series panel's options against its panel config's).
import {
  SortOrder,
  TooltipDisplayMode,
  VariableRefresh,
  VariableSort,
  type DataQuery,
  type DataSourceRef,
  type Dashboard,
  type Panel,
  type VariableModel,
} from '@grafana/schema';
import type { Options as TimeSeriesOptions } from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';

/** A PromQL query of a panel; `$domain` and `$__rate_interval` are the dashboards' only variables in it. */
export interface PromQuery extends DataQuery {
  expr: string;
  legendFormat: string;
}

/** What one graph shows: its queries (PromQL, legend) and the unit of their values (Grafana's unit ids). */
export interface Graph {
  title: string;
  description: string;
  unit: 'reqps' | 'ops' | 'percentunit' | 's' | 'short' | 'bytes';
  queries: ReadonlyArray<readonly [expr: string, legend: string]>;
}

const DATASOURCE: DataSourceRef = { type: 'prometheus', uid: '${datasource}' };
const TIME_SERIES_OPTIONS: TimeSeriesOptions = {
  legend: { showLegend: true, placement: 'bottom', calcs: [] },
  tooltip: { mode: TooltipDisplayMode.Multi, sort: SortOrder.Descending },
};
const WIDTH = 12;
const HEIGHT = 8;

/** A time series panel at position `index` of a two-column grid. */
function timeSeries(g: Graph, index: number): Panel {
  const targets: PromQuery[] = g.queries.map(([expr, legendFormat], i) => ({
    refId: String.fromCharCode(65 + i),
    datasource: DATASOURCE,
    expr,
    legendFormat,
  }));
  return {
    id: index + 1,
    type: 'timeseries',
    title: g.title,
    description: g.description,
    datasource: DATASOURCE,
    gridPos: { h: HEIGHT, w: WIDTH, x: (index % 2) * WIDTH, y: Math.floor(index / 2) * HEIGHT },
    targets: targets.map((t) => ({ ...t })),
    fieldConfig: { defaults: { unit: g.unit, min: 0 }, overrides: [] },
    options: { ...TIME_SERIES_OPTIONS },
  };
}

const datasourceVariable: VariableModel = {
  name: 'datasource',
  label: 'Data source',
  type: 'datasource',
  query: 'prometheus',
};

/** The `domain` variable: the rate-limit domains seen, all by default. */
export const domainVariable: VariableModel = {
  name: 'domain',
  label: 'Domain',
  type: 'query',
  datasource: DATASOURCE,
  query: 'label_values(ratelimit_service_rate_limit_total_hits, domain)',
  refresh: VariableRefresh.onTimeRangeChanged,
  sort: VariableSort.alphabeticalAsc,
  includeAll: true,
  multi: true,
  allValue: '.*',
  current: { text: 'All', value: '$__all' },
};

/** A dashboard of `graphs`, laid out two per row, on the data source picked in its `datasource` variable. */
export function createDashboard(o: {
  uid: string;
  title: string;
  description: string;
  graphs: readonly Graph[];
  variables?: readonly VariableModel[];
}): Dashboard {
  return {
    uid: o.uid,
    title: o.title,
    description: o.description,
    tags: ['portcullis'],
    schemaVersion: 39,
    editable: true,
    refresh: '30s',
    time: { from: 'now-1h', to: 'now' },
    templating: { list: [datasourceVariable, ...(o.variables ?? [])] },
    panels: o.graphs.map(timeSeries),
  };
}
