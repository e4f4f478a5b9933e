/**
 * A strict reader of the charts' SVG, for their tests: elements with double-quoted attributes,
 * text, and the five entities escapeHtml writes. Anything else (an unclosed or mismatched tag, a
 * bare `&` or `<`, a comment, a processing instruction, CDATA) is an error, so a chart that is not
 * well-formed XML fails its test.
 */
export interface SvgElement {
  name: string;
  attributes: Record<string, string>;
  children: SvgElement[];
  /** The element's own text, entities decoded (not its children's). */
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

function decode(raw: string, where: number): string {
  if (/[<>]/.test(raw)) throw new Error(`a bare < or > at ${where}`);
  return raw.replace(/&([^;]*);?/g, (match, name: string) => {
    if (!match.endsWith(';') || !(name in ENTITIES)) throw new Error(`a bare & or unknown entity ${JSON.stringify(match)} at ${where}`);
    return ENTITIES[name];
  });
}

export function parseSvg(markup: string): SvgElement {
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[A-Za-z][\w:-]*="[^"]*")*)\s*(\/?)>/y;
  const root: SvgElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: SvgElement[] = [root];
  let at = 0;
  while (at < markup.length) {
    const next = markup.indexOf('<', at);
    const textEnd = next === -1 ? markup.length : next;
    if (textEnd > at) stack[stack.length - 1].text += decode(markup.slice(at, textEnd), at);
    if (next === -1) break;
    tag.lastIndex = next;
    const match = tag.exec(markup);
    if (!match) throw new Error(`not a tag at ${next}: ${JSON.stringify(markup.slice(next, next + 40))}`);
    const [, closing, name, attributeText, selfClosing] = match;
    if (closing) {
      const open = stack.pop();
      if (!open || open.name !== name || stack.length === 0) throw new Error(`</${name}> closes ${open?.name ?? 'nothing'} at ${next}`);
    } else {
      const attributes: Record<string, string> = {};
      for (const [, key, value] of attributeText.matchAll(/([A-Za-z][\w:-]*)="([^"]*)"/g)) {
        if (key in attributes) throw new Error(`attribute ${key} twice at ${next}`);
        attributes[key] = decode(value, next);
      }
      const element: SvgElement = { name, attributes, children: [], text: '' };
      stack[stack.length - 1].children.push(element);
      if (!selfClosing) stack.push(element);
    }
    at = tag.lastIndex;
  }
  if (stack.length !== 1) throw new Error(`${stack[stack.length - 1].name} is never closed`);
  if (root.children.length !== 1 || root.text.trim() !== '') throw new Error('not one root element');
  return root.children[0];
}

/** Every element under `element` (itself included), depth first, in document order. */
export function allElements(element: SvgElement): SvgElement[] {
  return [element, ...element.children.flatMap(allElements)];
}

/** Every text under `element`, concatenated in document order. */
export function allText(element: SvgElement): string {
  return element.text + element.children.map(allText).join('');
}

/**
 * What in a chart the console's CSP (`default-src 'self'`, no inline style or script) or a strict
 * reader would refuse: script or style elements, style or event-handler attributes, references
 * to anything outside the markup (href, url(...), a URL other than the SVG namespace).
 */
export function cspBreaches(root: SvgElement): string[] {
  const breaches: string[] = [];
  for (const element of allElements(root)) {
    if (['script', 'style', 'foreignObject', 'image', 'use', 'a', 'iframe'].includes(element.name)) breaches.push(`<${element.name}>`);
    for (const [name, value] of Object.entries(element.attributes)) {
      if (name === 'style' || /^on/i.test(name) || /href$/i.test(name)) breaches.push(`${element.name}[${name}]`);
      if (/url\(|javascript:/i.test(value)) breaches.push(`${element.name}[${name}=${value}]`);
      if (/\b[a-z][a-z0-9+.-]*:\/\//i.test(value) && !(name === 'xmlns' && value === 'http://www.w3.org/2000/svg')) breaches.push(`${element.name}[${name}=${value}]`);
    }
  }
  return breaches;
}
