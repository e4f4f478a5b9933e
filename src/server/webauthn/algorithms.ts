/**
 * COSE algorithms offered at registration, in order of preference: EdDSA, ES256, RS256, then the
 * rest SimpleWebAuthn can verify (PS256, ES384, RS384, PS384, ES512, RS512, PS512).
 */
export const SUPPORTED_ALGORITHM_IDS = [-8, -7, -257, -37, -35, -258, -38, -36, -259, -39];
