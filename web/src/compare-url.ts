// The one link of a comparison: `/compare#a=<session>&b=<session>`, each side a session encoded
// as the playground's own `#s=` fragment (code, function, stack, args). Nothing is stored.

import { type Session, decodeFragment, encodeFragment } from "./session";

export function compareUrl(a: Session, b: Session): string | null {
  const ea = encodeFragment(a), eb = encodeFragment(b);
  if (!ea || !eb) return null;
  return `${location.origin}/compare#a=${ea.slice(2)}&b=${eb.slice(2)}`;
}

export function parseCompare(hash: string): { a: Session | null; b: Session | null } {
  const get = (k: string) => new RegExp(`(?:^#?|&)${k}=([A-Za-z0-9_-]+)`).exec(hash)?.[1];
  const side = (k: string) => { const v = get(k); return v ? decodeFragment(`s=${v}`) : null; };
  return { a: side("a"), b: side("b") };
}
