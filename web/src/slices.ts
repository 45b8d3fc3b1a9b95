// Long work on the main thread, cut into slices that each end well within a frame, with the
// browser free to handle input and render between them, so the page never stalls.

/** Time one slice of script may take (ms); the browser's style, layout and paint of what it
 *  added come on top, and the whole must stay far below the 50 ms of a "long task". */
export const SLICE_MS = 5;

/**
 * Resolve in a new task after the browser has rendered a frame (so what the last slice added is
 * styled, laid out and painted on its own, not piled onto the next slice's). Where no frame
 * comes (a hidden tab), a timer continues the work anyway.
 */
export function nextFrame(): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const go = () => { if (!done) { done = true; resolve(); } };
    requestAnimationFrame(() => setTimeout(go, 0));
    setTimeout(go, 100);
  });
}

/** Let the event loop run (input, timers), then continue in a new task. */
export function yieldToMain(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Run ``steps`` in order, a slice per frame (starting with a wait for one when ``deferred``).
 * Returns false (and stops) as soon as ``stale()`` says the work is no longer wanted.
 */
export async function runSliced(steps: Iterable<() => void>, stale: () => boolean = () => false, deferred = false): Promise<boolean> {
  let start = deferred ? -Infinity : performance.now();
  for (const step of steps) {
    if (performance.now() - start > SLICE_MS) {
      await nextFrame();
      if (stale()) return false;
      start = performance.now();
    }
    step();
  }
  return true;
}
