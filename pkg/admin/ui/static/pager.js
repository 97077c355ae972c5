// Keyset paging of a list page. Next follows the answer's nextCursor;
// Previous goes back through the cursors this tab has followed for the
// same filter (the routes page forward only).
import { h } from './dom.js';

// newTrail returns the cursors behind the current page of one list page
// (hash such as '#/messages'), kept across its renders in this tab.
export function newTrail(hash) {
  let filter = '';
  let cursors = [];
  // key is the filter without its cursor.
  const key = (params) => {
    const q = new URLSearchParams(params);
    q.delete('cursor');
    return q.toString();
  };
  return {
    // seen forgets the cursors when the filter changed or the page is
    // the first.
    seen(params) {
      if (filter !== key(params) || !params.get('cursor')) {
        filter = key(params);
        cursors = [];
      }
    },
    // pager returns the Previous and Next buttons of the page params
    // shows; next is the answer's nextCursor (null on the last page).
    pager(params, next, label) {
      const prev = h('button', { type: 'button', id: 'prev', disabled: !params.get('cursor') }, '← Previous');
      const nextBtn = h('button', { type: 'button', id: 'next', disabled: !next }, 'Next →');
      prev.addEventListener('click', () => {
        const q = new URLSearchParams(params);
        const back = cursors.pop();
        if (back) q.set('cursor', back);
        else q.delete('cursor');
        location.hash = hash + '?' + q.toString();
      });
      nextBtn.addEventListener('click', () => {
        cursors.push(params.get('cursor') || '');
        const q = new URLSearchParams(params);
        q.set('cursor', next);
        location.hash = hash + '?' + q.toString();
      });
      return h('nav', { class: 'pager', 'aria-label': label }, prev, nextBtn);
    },
  };
}
