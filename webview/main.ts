/**
 * The webview's entry: hands the host's messages to the app, which owns all state. The page says
 * which app with `data-view` on its main element: the timeline of one session (app.ts) or the
 * compare view of several (compareApp.ts).
 */
import { TimelineApp, type VsCodeApi } from './app';
import { CompareApp } from './compareApp';

declare function acquireVsCodeApi(): VsCodeApi;

const root = document.getElementById('app') ?? document.body;
const api = acquireVsCodeApi();
const app = root.dataset.view === 'compare' ? new CompareApp(api, root) : new TimelineApp(api, root);
window.addEventListener('message', (ev: MessageEvent<unknown>) => app.handle(ev.data));
app.start();
