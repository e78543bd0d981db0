"""What a page can leave behind for the next episode, and a probe that reads it back: the
page-reuse and in-place-reset tests write it, then compare the next episode's page with a
new one's, read by the same probe."""

from __future__ import annotations

# Every store a page can write: cookies, local and session storage, window.name,
# IndexedDB and the cache storage (where the origin has it).
_STORES = """
  document.cookie = 'left=1; max-age=3600';
  localStorage.setItem('left', '1');
  sessionStorage.setItem('left', '1');
  window.name = 'left';
  await new Promise(done => {
    const open = indexedDB.open('left');
    open.onsuccess = () => { open.result.close(); done(); };
  });
  if (self.caches) await (await caches.open('left')).put('/left', new Response('1'));
"""


def leave(extra: str = "") -> str:
    """A script that writes every store, then does ``extra`` (JavaScript statements)."""
    return f"async () => {{{_STORES}{extra}\n}}"


PROBE = """async () => ({
  cookie: document.cookie,
  local: localStorage.length,
  session: sessionStorage.length,
  name: window.name,
  history: history.length,
  databases: (await indexedDB.databases()).map(d => d.name),
  caches: self.caches ? await caches.keys() : null,
  workers: 'serviceWorker' in navigator,
  focused: document.activeElement === document.body,
  scroll: [scrollX, scrollY],
  selected: String(getSelection()),
})"""
