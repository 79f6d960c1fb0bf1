/**
 * Layout checks the code-server suites run inside a timeline webview: whether a control's text is
 * cut off. A native select never reports overflow (its scrollWidth equals its clientWidth however
 * much of its text it hides), so the width it needs is measured on a hidden copy sized to its
 * content (`field-sizing: content`, no width bounds) and compared with the width it got.
 */
import type { FrameLocator } from 'playwright-core';

/** The little of the DOM the check uses (the e2e code compiles without the DOM library). */
interface SelectLike {
  className: string;
  selectedIndex: number;
  selectedOptions: ArrayLike<{ textContent: string | null }>;
  getBoundingClientRect(): { width: number };
  cloneNode(deep: boolean): SelectLike & { style: { cssText: string }; remove(): void };
  ownerDocument: { body: { append(n: unknown): void } };
  checkVisibility?(): boolean;
}

export interface ClippedSelect {
  label: string;
  text: string;
  has: number;
  needs: number;
}

/** Every visible select in the frame whose selected text does not fit (an empty list: none is clipped). */
export async function clippedSelects(f: FrameLocator): Promise<ClippedSelect[]> {
  return f.locator('select').evaluateAll((els: SelectLike[]) =>
    els
      .filter((s) => s.getBoundingClientRect().width > 0 && (s.checkVisibility?.() ?? true))
      .map((s) => {
        const copy = s.cloneNode(true);
        copy.style.cssText = 'position:absolute;left:-9999px;top:0;visibility:hidden;width:auto;min-width:0;max-width:none;field-sizing:content';
        copy.selectedIndex = s.selectedIndex;
        s.ownerDocument.body.append(copy);
        const needs = copy.getBoundingClientRect().width;
        copy.remove();
        const label = (s as unknown as { getAttribute(n: string): string | null }).getAttribute('aria-label') ?? s.className;
        return { label, text: s.selectedOptions[0]?.textContent ?? '', has: s.getBoundingClientRect().width, needs };
      })
      .filter((m) => m.needs > m.has + 0.5),
  );
}
