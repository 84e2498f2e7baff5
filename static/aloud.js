// "Read scores aloud": after each change, the phone says the board's
// data-said, worded by the server in the page's language from the replayed
// history (tracker/screens/said.py). Only for a board that comes in after a
// change (data-said-for moved), never for a page opened or reloaded. The
// switch is kept per phone and is off until turned on; without JavaScript, or
// without speech synthesis, it stays hidden. The switch may be swapped with
// the game's part (templates/tracker/read_aloud.html): it is set up again
// after every swap, and its clicks are heard on the document.
(() => {
  const KEY = "readAloud";
  if (!window.speechSynthesis || !window.SpeechSynthesisUtterance) return;
  const synth = window.speechSynthesis;
  let on = false;
  try { on = localStorage.getItem(KEY) === "on"; } catch { /* storage off: off */ }
  let missing = false; // no voice of the page's language: the notice stays shown
  const lang = () => {
    const box = document.querySelector(".read-aloud");
    return box ? box.dataset.lang : document.documentElement.lang + "-IN";
  };
  // A voice of the page's language: Android lists languages whose voice is not
  // installed and reads them with an English voice, so the voice's own lang
  // must match. English takes any English voice; Hindi, Tamil and Telugu only theirs.
  const voiceFor = (wanted) => {
    const named = (voice) => (voice.lang || "").replace("_", "-").toLowerCase();
    const voices = synth.getVoices() || [];
    return voices.find((v) => named(v) === wanted.toLowerCase())
      || voices.find((v) => named(v).split("-")[0] === wanted.split("-")[0])
      || null;
  };
  const show = () => {
    const button = document.getElementById("read-aloud");
    if (button) {
      button.hidden = false;
      button.setAttribute("aria-pressed", on ? "true" : "false");
    }
    const notice = document.getElementById("no-voice");
    if (notice) notice.hidden = !(on && missing);
  };
  const say = (text) => {
    const wanted = lang();
    const voice = voiceFor(wanted);
    missing = !voice; // said on screen instead, never in an English voice
    show();
    if (!voice) return;
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = wanted;
    utterance.voice = voice;
    synth.cancel(); // the newest change only, not a queue of old ones
    synth.speak(utterance);
  };
  document.addEventListener("click", (event) => {
    if (!event.target.closest("#read-aloud")) return;
    on = !on;
    try { localStorage.setItem(KEY, on ? "on" : "off"); } catch { /* this page only */ }
    if (on) missing = !voiceFor(lang());
    else synth.cancel();
    show();
  });
  // The phone's voices load late on some browsers: look again once they have.
  if (synth.addEventListener) {
    synth.addEventListener("voiceschanged", () => {
      if (missing && voiceFor(lang())) {
        missing = false;
        show();
      }
    });
  }
  const board = () => document.getElementById("board");
  let saidFor = board() ? board().dataset.saidFor : null;
  document.addEventListener("htmx:afterSettle", () => {
    show();
    const shown = board();
    if (!shown || shown.dataset.saidFor === saidFor) return;
    saidFor = shown.dataset.saidFor;
    if (on && shown.dataset.said) say(shown.dataset.said);
  });
  show();
})();
