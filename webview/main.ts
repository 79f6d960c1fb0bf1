/**
 * The webview's entry: hands the host's messages to the app (app.ts), which owns all state.
 */
import { TimelineApp, type VsCodeApi } from './app';

declare function acquireVsCodeApi(): VsCodeApi;

const app = new TimelineApp(acquireVsCodeApi(), document.getElementById('app') ?? document.body);
window.addEventListener('message', (ev: MessageEvent<unknown>) => app.handle(ev.data));
app.start();
