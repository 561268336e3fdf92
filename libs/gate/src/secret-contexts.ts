// Sealing contexts of the vault's account secrets (bound into each ciphertext's AAD), kept
// with the gate because the gate is what opens them for a caller.
export const PASSWORD_CONTEXT = 'accounts.password';
export const FILE_CONTEXT = 'stored_files.content';
