/**
 * One multi-step input, as VS Code's own multi-step quick inputs behave: a title, "step n of m",
 * a Back button from the second step on, and ignoreFocusOut so a click elsewhere does not lose
 * what was entered. Each ask resolves with the answer, BACK, or rejects with Cancelled (Esc).
 */
import * as vscode from 'vscode';

export class Cancelled extends Error {}

export const BACK = Symbol('back');
export type Back = typeof BACK;

export interface StepInfo {
  title: string;
  step: number;
  totalSteps: number;
}

/** A picked item, or a typed value that matches no item (when allowTyped). */
export type Picked<T> = { item: T; typed?: undefined } | { item?: undefined; typed: string };

/**
 * A quick pick step. With `typed`, text that is not one of the items is offered as the first item
 * ("demo — typed"), so a value can be entered as well as picked, and is returned as typed.
 */
export async function askPick<T extends vscode.QuickPickItem>(
  info: StepInfo,
  items: T[],
  placeholder: string,
  opts: { activeLabel?: string; typed?: { description: string; validate?: (text: string) => string | undefined } } = {},
): Promise<Picked<T> | Back> {
  const qp = vscode.window.createQuickPick<T | vscode.QuickPickItem>();
  qp.title = info.title;
  qp.step = info.step;
  qp.totalSteps = info.totalSteps;
  qp.items = items;
  qp.placeholder = placeholder;
  qp.ignoreFocusOut = true;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.buttons = info.step > 1 ? [vscode.QuickInputButtons.Back] : [];
  const active = items.find((i) => i.label === opts.activeLabel);
  if (active) qp.activeItems = [active];
  let typedItem: vscode.QuickPickItem | undefined;
  try {
    return await new Promise<Picked<T> | Back>((resolve, reject) => {
      qp.onDidTriggerButton((b) => b === vscode.QuickInputButtons.Back && resolve(BACK));
      if (opts.typed) {
        const typed = opts.typed;
        qp.onDidChangeValue((v) => {
          const text = v.trim();
          typedItem = text && !items.some((i) => i.label === text) ? { label: text, description: typed.description, alwaysShow: true } : undefined;
          qp.items = typedItem ? [typedItem, ...items] : items;
          const problem = typedItem ? typed.validate?.(text) : undefined;
          // QuickPick has no validationMessage in this API version: the title says what is wrong.
          qp.title = problem ? `${info.title}: ${problem}` : info.title;
        });
      }
      qp.onDidAccept(() => {
        const chosen = qp.selectedItems[0] ?? qp.activeItems[0];
        if (!chosen) return;
        if (chosen === typedItem) {
          if (opts.typed?.validate?.(chosen.label)) return;
          resolve({ typed: chosen.label });
        } else resolve({ item: chosen as T });
      });
      qp.onDidHide(() => reject(new Cancelled()));
      qp.show();
    });
  } finally {
    qp.dispose();
  }
}

export async function askText(
  info: StepInfo,
  prompt: string,
  value: string,
  placeholder: string,
  validate: (text: string) => string | undefined = () => undefined,
): Promise<string | Back> {
  const box = vscode.window.createInputBox();
  box.title = info.title;
  box.step = info.step;
  box.totalSteps = info.totalSteps;
  box.prompt = prompt;
  box.value = value;
  box.placeholder = placeholder;
  box.ignoreFocusOut = true;
  box.buttons = info.step > 1 ? [vscode.QuickInputButtons.Back] : [];
  try {
    return await new Promise<string | Back>((resolve, reject) => {
      box.onDidTriggerButton((b) => b === vscode.QuickInputButtons.Back && resolve(BACK));
      box.onDidChangeValue((v) => (box.validationMessage = validate(v.trim())));
      box.onDidAccept(() => {
        const problem = validate(box.value.trim());
        if (problem) box.validationMessage = problem;
        else resolve(box.value.trim());
      });
      box.onDidHide(() => reject(new Cancelled()));
      box.show();
    });
  } finally {
    box.dispose();
  }
}
