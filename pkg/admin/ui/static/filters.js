// The filters the admin routes share: the message list takes all of them
// as query parameters, the bulk replay a subset in its body.

export const states = {
  outbox: ['pending', 'processing', 'sent', 'dead'],
  inbox: ['pending', 'processing', 'processed', 'dead'],
};

// textFilters are the free-text filters of each table: [param, label, hint].
// Topic and destination select outbox rows only; the inbox has no topic.
export const textFilters = {
  outbox: [
    ['topic', 'Topic (glob)', 'order.*'],
    ['destination', 'Destination', ''],
    ['key', 'Key', ''],
  ],
  inbox: [
    ['source', 'Source', ''],
    ['key', 'Aggregate id', ''],
  ],
};

export const timeFilters = [
  ['createdAfter', 'Created after', '2026-01-31T00:00:00Z'],
  ['createdBefore', 'Created before', '2026-02-01T00:00:00Z'],
];

// tableOf reads the table parameter, outbox unless it says inbox.
export const tableOf = (params) => (params.get('table') === 'inbox' ? 'inbox' : 'outbox');

// summary names the filter in use in one line, for the folded filter
// panel: the table, then each set filter with its value.
export function summary(tbl, params) {
  const parts = [tbl];
  const st = params.getAll('state');
  if (st.length) parts.push('state ' + st.join(', '));
  for (const [name, label] of [...textFilters[tbl], ['error', 'error contains'], ...timeFilters]) {
    const v = params.get(name);
    if (v) parts.push(label.replace(/ \(.*\)$/, '').toLowerCase() + ' ' + v);
  }
  if (params.get('discarded') === 'true') parts.push('with discarded');
  if (params.get('limit') && params.get('limit') !== '50') parts.push(params.get('limit') + ' per page');
  if (parts.length === 1) parts.push('no filter');
  return parts.join(' · ');
}
