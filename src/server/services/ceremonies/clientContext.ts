/** What a completed ceremony records of the browser: shown with the credential, never used to decide. */
export interface ClientContext {
  /** `"<browser>, <OS> <major>"` */
  device: string;
  /** Two letters, or empty. */
  country: string;
}
