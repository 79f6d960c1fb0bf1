/** The tool version written into trace headers: the package's own version. */
import pkg from '../../package.json';

export const TOOL_VERSION: string = pkg.version;
