/** The gateway's version, reported in `hello-ok` and `status`. */
export const gatewayVersion = '0.1.0';
