// The scripted pointer agent's look at a MiniWoB++ page (tests/support/miniwob_pointer.py):
// a read-only query of where things are, in viewport CSS pixels. Nothing is changed.
() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height };
  };
  const shown = (el) => el && el.getBoundingClientRect().width > 0;
  const charBox = (node, index) => {
    const range = document.createRange();
    range.setStart(node, index);
    range.setEnd(node, index + 1);
    return box(range);
  };
  // The boxes of the first and last characters that are not white space under an element.
  const textEnds = (el) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const chars = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        if (node.data[i].trim()) chars.push([node, i]);
      }
    }
    if (!chars.length) return null;
    return { first: charBox(...chars[0]), last: charBox(...chars[chars.length - 1]) };
  };
  const submit = ['#subbtn', '#submit', '#controls button'].map((s) => document.querySelector(s));
  const svg = document.querySelector('#area svg');
  const text = document.querySelector('#randomText');
  const cube = document.querySelector('.cube');
  return {
    submit: submit.filter(shown).map(box)[0] || null,
    small: shown(document.querySelector('#draggableSmall'))
      ? box(document.querySelector('#draggableSmall'))
      : null,
    large: shown(document.querySelector('#draggableLarge'))
      ? box(document.querySelector('#draggableLarge'))
      : null,
    svg: svg ? box(svg) : null,
    shapes: svg
      ? [...svg.querySelectorAll('rect:not(#shape-container), circle:not(#circ), polygon')].map(
          (el) => ({ tag: el.tagName, fill: el.getAttribute('fill'), ...box(el) }),
        )
      : [],
    containers: [...document.querySelectorAll('#shape-container')].map(box),
    mark: shown(document.querySelector('#circ')) ? box(document.querySelector('#circ')) : null,
    items: [...document.querySelectorAll('#sortable li')].map((el) => ({
      text: el.textContent.trim(),
      ...box(el),
    })),
    handle: shown(document.querySelector('.ui-resizable-se'))
      ? box(document.querySelector('.ui-resizable-se'))
      : null,
    paragraphs: text
      ? (text.querySelector('p') ? [...text.querySelectorAll('p')] : [text]).map(textEnds)
      : [],
    cube: cube
      ? {
          ...box(document.querySelector('.viewport') || cube),
          active: document.querySelector('.cube-image.active').textContent.trim(),
          turn: window.cube.viewport.positionX,
          tilt: window.cube.viewport.positionY,
          // still turning while either torque is above the page's threshold of 1
          torque: Math.max(Math.abs(window.cube.viewport.torqueX), Math.abs(window.cube.viewport.torqueY)),
          // the pointer where the page's last tick saw it: a press there turns nothing
          pointerSeen:
            window.cube.viewport.lastX === window.cube.viewport.mouseX &&
            window.cube.viewport.lastY === window.cube.viewport.mouseY,
          pointer: [window.cube.viewport.mouseX, window.cube.viewport.mouseY],
          held: window.cube.viewport.down,
        }
      : null,
  };
}
