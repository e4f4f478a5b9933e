/** A PublicKeyCredentialDescriptor from a stored credential; `transports` only when some are known. */
export function descriptorOf(descriptorId: string, transportsJson: string) {
  const transports = JSON.parse(transportsJson) as string[];
  return { type: 'public-key', id: descriptorId, ...(transports.length > 0 ? { transports } : {}) };
}
