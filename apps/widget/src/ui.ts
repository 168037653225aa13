import type { GuardStatus } from './status';

/**
 * What the widget draws around one input: the status icon inside its right edge, the tooltip below
 * it and the red highlight. Everything is built with the DOM and inline styles (no style sheet, no
 * innerHTML), so sites with a strict Content-Security-Policy or Trusted Types keep working, and
 * everything it changes is remembered so that `destroy()` can put it back.
 */
const SVG = 'http://www.w3.org/2000/svg';
const ICON = 16;
const GAP = 8;

type Shape = [string, Record<string, string>];
const ICONS: Partial<Record<GuardStatus | 'blocked', { color: string; title: string; shapes: Shape[] }>> = {
  checking: {
    color: '#6b7280',
    title: 'Checking',
    shapes: [['circle', { cx: '8', cy: '8', r: '6', fill: 'none', 'stroke-width': '2', 'stroke-dasharray': '26 12' }]],
  },
  valid: {
    color: '#16a34a',
    title: 'Valid',
    shapes: [
      ['circle', { cx: '8', cy: '8', r: '7', fill: 'none', 'stroke-width': '1.5' }],
      ['path', { d: 'M4.5 8.2l2.3 2.3 4.7-4.9', fill: 'none', 'stroke-width': '1.8' }],
    ],
  },
  risky: {
    color: '#d97706',
    title: 'Risky',
    shapes: [
      ['path', { d: 'M8 1.5L15 14.5H1z', fill: 'none', 'stroke-width': '1.5' }],
      ['path', { d: 'M8 6v4M8 11.8v.9', 'stroke-width': '1.8' }],
    ],
  },
  blocked: {
    color: '#dc2626',
    title: 'Not accepted',
    shapes: [
      ['circle', { cx: '8', cy: '8', r: '7', fill: 'none', 'stroke-width': '1.5' }],
      ['path', { d: 'M5.3 5.3l5.4 5.4M10.7 5.3l-5.4 5.4', 'stroke-width': '1.8' }],
    ],
  },
  disposable: {
    color: '#dc2626',
    title: 'Disposable address',
    shapes: [
      [
        'path',
        { d: 'M2.5 4h11M6 4V2.5h4V4M4 4l.8 10h6.4L12 4M6.8 6.5v5M9.2 6.5v5', fill: 'none', 'stroke-width': '1.4' },
      ],
    ],
  },
};

function iconFor(status: GuardStatus): SVGSVGElement | null {
  const spec = ICONS[status === 'invalid' || status === 'free' ? 'blocked' : status];
  if (!spec) return null;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', String(ICON));
  svg.setAttribute('height', String(ICON));
  svg.setAttribute('stroke', spec.color);
  svg.setAttribute('stroke-linecap', 'round');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', spec.title);
  // Shapes go in a group: the spinner turns the group about the icon's centre, never the <svg> box itself.
  const group = document.createElementNS(SVG, 'g');
  for (const [tag, attributes] of spec.shapes) {
    const shape = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) shape.setAttribute(name, value);
    group.appendChild(shape);
  }
  if (status === 'checking') {
    const spin = document.createElementNS(SVG, 'animateTransform');
    for (const [name, value] of Object.entries({
      attributeName: 'transform',
      type: 'rotate',
      from: '0 8 8',
      to: '360 8 8',
      dur: '0.9s',
      repeatCount: 'indefinite',
    }))
      spin.setAttribute(name, value);
    group.appendChild(spin);
  }
  svg.appendChild(group);
  return svg;
}

export type Tone = 'error' | 'warning' | 'success';
const TONES: Record<Tone, Partial<CSSStyleDeclaration>> = {
  error: { color: '#991b1b', background: '#fef2f2', border: '1px solid #fecaca' },
  warning: { color: '#92400e', background: '#fffbeb', border: '1px solid #fde68a' },
  success: { color: '#166534', background: '#f0fdf4', border: '1px solid #bbf7d0' },
};

let nextId = 0;

export class Decorations {
  private icon: HTMLSpanElement | null = null;
  private tooltip: HTMLDivElement | null = null;
  private readonly tooltipId = `guard-tip-${++nextId}`;
  private readonly saved: Record<string, string>;
  private readonly savedInvalid: string | null;
  private readonly hadStyle: boolean;
  private padded = false;

  constructor(private readonly input: HTMLInputElement) {
    const style = input.style;
    this.saved = {
      paddingRight: style.paddingRight,
      borderColor: style.borderColor,
      backgroundColor: style.backgroundColor,
      boxShadow: style.boxShadow,
    };
    this.savedInvalid = input.getAttribute('aria-invalid');
    this.hadStyle = input.hasAttribute('style');
  }

  showIcon(status: GuardStatus | null): void {
    this.icon?.remove();
    this.icon = null;
    const svg = status && iconFor(status);
    if (!svg) return;
    if (!this.padded) {
      // Room for the icon, on top of the site's own padding, so typed text never runs under it.
      const current = parseFloat(getComputedStyle(this.input).paddingRight) || 0;
      this.input.style.paddingRight = `${current + ICON + GAP}px`;
      this.padded = true;
    }
    const icon = document.createElement('span');
    icon.setAttribute('data-guard-icon', status as string);
    Object.assign(icon.style, {
      position: 'absolute',
      width: `${ICON}px`,
      height: `${ICON}px`,
      lineHeight: '0',
      pointerEvents: 'none',
      zIndex: '2',
    });
    icon.appendChild(svg);
    this.input.insertAdjacentElement('afterend', icon);
    this.icon = icon;
    this.place();
  }

  showTooltip(text: string | null, tone: Tone): void {
    if (!text) {
      this.tooltip?.remove();
      this.tooltip = null;
      this.describe(false);
      return;
    }
    if (!this.tooltip) {
      const tooltip = document.createElement('div');
      tooltip.id = this.tooltipId;
      tooltip.setAttribute('data-guard-tooltip', '');
      Object.assign(tooltip.style, {
        position: 'absolute',
        zIndex: '3',
        font: '12px/1.4 system-ui, sans-serif',
        padding: '3px 8px',
        borderRadius: '4px',
        whiteSpace: 'normal',
        boxSizing: 'border-box',
      });
      (this.icon ?? this.input).insertAdjacentElement('afterend', tooltip);
      this.tooltip = tooltip;
    }
    this.tooltip.textContent = text;
    Object.assign(this.tooltip.style, TONES[tone]);
    this.describe(true);
    this.place();
  }

  highlight(on: boolean): void {
    const style = this.input.style;
    if (on) {
      // The input's own border and shadow follow its border radius, whatever it is.
      Object.assign(style, { borderColor: '#dc2626', backgroundColor: '#fef2f2', boxShadow: '0 0 0 1px #dc2626' });
    } else {
      Object.assign(style, {
        borderColor: this.saved.borderColor,
        backgroundColor: this.saved.backgroundColor,
        boxShadow: this.saved.boxShadow,
      });
    }
  }

  invalid(on: boolean): void {
    if (on) this.input.setAttribute('aria-invalid', 'true');
    else if (this.savedInvalid === null) this.input.removeAttribute('aria-invalid');
    else this.input.setAttribute('aria-invalid', this.savedInvalid);
  }

  /** Icon and tooltip follow the input wherever the layout moves it. */
  place(): void {
    const { offsetTop, offsetLeft, offsetWidth, offsetHeight } = this.input;
    if (this.icon)
      Object.assign(this.icon.style, {
        top: `${offsetTop + (offsetHeight - ICON) / 2}px`,
        left: `${offsetLeft + offsetWidth - ICON - GAP}px`,
      });
    if (this.tooltip)
      Object.assign(this.tooltip.style, {
        top: `${offsetTop + offsetHeight + 4}px`,
        left: `${offsetLeft}px`,
        maxWidth: `${Math.max(offsetWidth, 160)}px`,
      });
  }

  remove(): void {
    this.icon?.remove();
    this.tooltip?.remove();
    this.icon = this.tooltip = null;
    Object.assign(this.input.style, this.saved);
    if (!this.hadStyle && !this.input.getAttribute('style')) this.input.removeAttribute('style');
    this.padded = false;
    this.describe(false);
    this.invalid(false);
  }

  private describe(on: boolean): void {
    const ids = (this.input.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter((id) => id && id !== this.tooltipId);
    if (on) ids.push(this.tooltipId);
    if (ids.length > 0) this.input.setAttribute('aria-describedby', ids.join(' '));
    else this.input.removeAttribute('aria-describedby');
  }
}
