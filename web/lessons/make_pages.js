// make_pages.js: writes the lesson book's pages (node make_pages.js OUT_DIR, run by scripts/web.sh
// after lessons.js is built into OUT_DIR): index.html and one NAME.html per lesson of the lesson
// table, in its order, from the templates beside this file. Leaves out: any lesson content (the
// pages run the lessons themselves).
'use strict';
const fs = require('fs');
const path = require('path');

const out = process.argv[2];
const here = __dirname;
const escape = s => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
                             .replace(/"/g, '&quot;');
const SOURCES = {
  'lecture': 'Let\'s build GPT: from scratch, in code, spelled out (the lecture)',
  'Raschka': 'Build a Large Language Model (From Scratch), chapter 3',
};

// A lesson that cannot run in the page at its defaults (the bigram lesson reads the 1 MB Tiny
// Shakespeare text) is listed with why, and the command that runs it, instead of a page.
function contents(lessons, why) {
  let html = '', group = '';
  for (const l of lessons) {
    const g = l.source.startsWith('Raschka') ? 'Raschka' : 'lecture';
    if (g !== group) {
      html += (group ? '</ol>\n' : '') + `<h2>${escape(SOURCES[g])}</h2>\n<ol class="toc">\n`;
      group = g;
    }
    const link = why[l.name] ? `<code>scratchgpt lesson ${escape(l.name)}</code>`
                             : `<a href="${escape(l.name)}.html">${escape(l.name)}</a>`;
    html += `<li>${link} <span class="desc">${escape(l.description)}</span> ` +
            `<span class="source">${escape(l.source)}</span>` +
            (why[l.name] ? `<br><span class="cli-only">command line only (in a page it stops with: ${escape(why[l.name])})</span>` : '') +
            '</li>\n';
  }
  return html + '</ol>';
}

function nav(lessons, i) {
  const prev = i > 0 ? ` · <a href="${escape(lessons[i - 1].name)}.html">← ${escape(lessons[i - 1].name)}</a>` : '';
  const next = i + 1 < lessons.length ? ` · <a href="${escape(lessons[i + 1].name)}.html">${escape(lessons[i + 1].name)} →</a>` : '';
  return prev + next;
}

const created = require(path.resolve(out, 'lessons.js'))();
(typeof created.then === 'function' ? created : created.ready || Promise.resolve(created)).then(module => {
  const all = JSON.parse(module.lessons_json()), why = {};
  for (const l of all) {
    const run = JSON.parse(module.lesson_json(l.name, '{}'));
    if (run.error) why[l.name] = run.error;
  }
  const lessons = all.filter(l => !why[l.name]);
  const index = fs.readFileSync(path.join(here, 'index.html'), 'utf8');
  fs.writeFileSync(path.join(out, 'index.html'), index.replace('@CONTENTS@', contents(all, why)));
  const page = fs.readFileSync(path.join(here, 'lesson.html'), 'utf8');
  lessons.forEach((l, i) => {
    const html = page.replace(/@NAME@/g, escape(l.name)).replace('@DESCRIPTION@', escape(l.description))
                     .replace('@SOURCE@', escape(l.source)).replace('@NAV@', nav(lessons, i));
    fs.writeFileSync(path.join(out, l.name + '.html'), html);
  });
  for (const f of ['book.js', 'book.css']) fs.copyFileSync(path.join(here, f), path.join(out, f));
  console.log(`wrote ${out}/index.html and ${lessons.length} lesson pages`);
});
