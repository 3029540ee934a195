// The page's one script: live updates. The server sends an event over one EventSource whenever the outbox
// dispatches (a card posted or edited anywhere); the page fetches its own main part again and swaps it in,
// at most a few times a second, and not while someone is typing a reason. Plain ES2020, no framework.
export const LIVE_SCRIPT = `
(() => {
  const main = document.getElementById('main');
  if (!main || !window.EventSource) return;
  let timer = 0;
  let busy = false;
  const typing = () => {
    const el = document.activeElement;
    return el && main.contains(el) && el.tagName === 'INPUT' && el.value !== '';
  };
  const refresh = async () => {
    if (busy) return;
    if (typing()) { timer = setTimeout(refresh, 1000); return; }
    busy = true;
    try {
      const answer = await fetch(main.dataset.src, { headers: { 'x-kazma-part': 'main' }, credentials: 'same-origin' });
      if (answer.status === 401) { location.assign('/ui/sign-in'); return; }
      if (answer.ok) {
        main.innerHTML = await answer.text();
        document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
      }
    } finally { busy = false; }
  };
  const events = new EventSource('/ui/events');
  events.addEventListener('change', () => { clearTimeout(timer); timer = setTimeout(refresh, 80); });
  events.addEventListener('ready', () => { document.body.dataset.live = 'on'; });
})();
`;
