/**
 * The tool that writes traces and sends requests: its name and the package's version. Trace
 * headers record it (TraceHeader.tool) and the HTTP client sends it as its user agent. The one
 * runtime value in src/format; it depends on nothing but package.json.
 */
import pkg from '../../package.json';

export const TOOL_NAME = 'informer-inspector';
export const TOOL_VERSION: string = pkg.version;
/** The HTTP user agent, in client-go's "name/version (detail)" shape. */
export const USER_AGENT = `${TOOL_NAME}/${TOOL_VERSION} (client-go-informer-port)`;
