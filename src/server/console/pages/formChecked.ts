/** A checkbox of a posted form: present (`on`, or `true`) means on, absent means off. */
export const formChecked = (value: unknown): boolean => value === 'on' || value === 'true';
