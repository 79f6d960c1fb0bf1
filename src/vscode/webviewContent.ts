/**
 * The timeline webview's options and HTML. One function builds the options so that panels,
 * the bottom view, the serializer and the trace editor all restrict the webview the same way:
 * scripts on, resources only from media/. The CSP allows only our nonce'd script and styles
 * from media/ (d3 and the elements set inline styles through the CSSOM, which CSP allows).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')] };
}

/** The page of a timeline webview; `view` 'compare' makes it the compare view of several sessions (webview/main.ts picks the app). */
export function timelineHtml(webview: vscode.Webview, extensionUri: vscode.Uri, title: string, view: 'timeline' | 'compare' = 'timeline'): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'webview', 'main.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'timeline.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}" nonce="${nonce}">
<title>${escapeHtml(title)}</title>
</head>
<body>
<main id="app" data-view="${view}" aria-label="${escapeHtml(title)}"></main>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
