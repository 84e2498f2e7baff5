// "Read scores aloud" (issue 40): after each change, the phone says the board's
// data-said, worded by the server in the page's language from the replayed
// history (tracker/screens/said.py). Only for a board that comes in after a
// change (data-said-for moved), never for a page opened or reloaded. The
// switch is kept per phone and is off until turned on; without JavaScript, or
// without speech synthesis, it stays hidden.
(() => {
  const KEY = "readAloud";
  const box = document.querySelector(".read-aloud");
  const button = document.getElementById("read-aloud");
  if (!box || !button || !window.speechSynthesis || !window.SpeechSynthesisUtterance) return;
  const lang = box.dataset.lang; // en-IN, hi-IN, ta-IN, te-IN
  const base = lang.split("-")[0];
  const notice = document.getElementById("no-voice");
  const stored = () => {
    try { return localStorage.getItem(KEY) === "on"; } catch { return false; }
  };
  let on = stored();
  const show = () => button.setAttribute("aria-pressed", on ? "true" : "false");
  // A voice of the page's language: Android lists languages whose voice is not
  // installed and reads them with an English voice, so the voice's own lang
  // must match. English takes any English voice; Hindi, Tamil and Telugu only theirs.
  const voiceFor = () => {
    const voices = window.speechSynthesis.getVoices() || [];
    const named = (voice) => (voice.lang || "").replace("_", "-").toLowerCase();
    return voices.find((v) => named(v) === lang.toLowerCase())
      || voices.find((v) => named(v).split("-")[0] === base)
      || null;
  };
  const say = (text) => {
    const voice = voiceFor();
    if (!voice) {
      if (notice) notice.hidden = false; // said once on screen, never in an English voice
      return;
    }
    if (notice) notice.hidden = true;
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = lang;
    utterance.voice = voice;
    window.speechSynthesis.cancel(); // the newest change only, not a queue of old ones
    window.speechSynthesis.speak(utterance);
  };
  const board = () => document.getElementById("board");
  let saidFor = board() ? board().dataset.saidFor : null;
  button.hidden = false;
  show();
  button.addEventListener("click", () => {
    on = !on;
    try { localStorage.setItem(KEY, on ? "on" : "off"); } catch { /* private mode: this page only */ }
    show();
    if (!on) {
      window.speechSynthesis.cancel();
      if (notice) notice.hidden = true;
    } else if (notice && !voiceFor()) {
      notice.hidden = false;
    }
  });
  // The phones' voices load late on some browsers: look again once they have.
  if (window.speechSynthesis.addEventListener) {
    window.speechSynthesis.addEventListener("voiceschanged", () => {
      if (notice && !notice.hidden && voiceFor()) notice.hidden = true;
    });
  }
  document.addEventListener("htmx:afterSettle", () => {
    const shown = board();
    if (!shown || shown.dataset.saidFor === saidFor) return;
    saidFor = shown.dataset.saidFor;
    if (on && shown.dataset.said) say(shown.dataset.said);
  });
})();
