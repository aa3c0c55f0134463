#!/usr/bin/env python3
"""Writes server/src/seed/place-names.json: the names the seeded places have in the dashboard's 27
languages (exonyms: Munich and Monaco di Baviera for München), so that the place search finds a place
by any of them.

Source: GeoNames' alternate names (CC BY 4.0, https://www.geonames.org/) as Debian packages them in
libgeonames-common (one gettext catalogue per language, keyed by GeoNames id; "CC.NN" keys are
first-level areas). Run on a Debian machine:

    apt-get download libgeonames-common && dpkg-deb -x libgeonames-common_*.deb /tmp/geonames
    python3 scripts/build-place-names.py /tmp/geonames

A seeded place is matched by its own name (in its country's language or in English) among the
catalogue's entries; a name that matches entries with different translations is left out rather than
guessed. Only names that differ from the place's own name are written.
"""
import gettext
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIDI_MARKS = re.compile('[\u200e\u200f\u202a-\u202e\u2066-\u2069]')
LANGUAGES = sorted(p.name for p in (ROOT / 'locales').iterdir() if p.is_dir())


def catalogue(base: Path, lng: str) -> dict[str, str]:
    path = base / 'usr/share/locale' / lng / 'LC_MESSAGES/geonames.mo'
    with open(path, 'rb') as f:
        entries = gettext.GNUTranslations(f)._catalog.items()
    # a few names carry direction marks (U+200E/U+200F): the dashboard isolates names itself
    return {k: BIDI_MARKS.sub('', v).strip() for k, v in entries if isinstance(k, str) and k}


def fold(s: str) -> str:
    return ''.join(c for c in unicodedata.normalize('NFKD', s.casefold()) if not unicodedata.combining(c))


def seeds() -> list[dict]:
    script = (
        "import('./server/src/seed/geo.ts').then((m) => console.log(JSON.stringify(m.COUNTRIES.map((c) => ({"
        "code: c.code, language: c.language, states: c.states.map((s) => s[0]),"
        "cities: c.states.flatMap((s) => s[2].flatMap((k) => k[2].map((x) => x[0])))})))))"
    )
    out = subprocess.run(['node', '--import', 'tsx', '-e', script], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> None:
    base = Path(sys.argv[1] if len(sys.argv) > 1 else '/tmp/geonames')
    cats = {lng: catalogue(base, lng) for lng in LANGUAGES}
    result: dict[str, dict[str, dict[str, dict[str, str]]]] = {}
    for country in seeds():
        cc, own = country['code'], country['language']
        for level, names, keep in (
            ('1', country['states'], lambda k: k.startswith(cc + '.')),
            ('3', country['cities'], lambda k: k.isdigit()),
        ):
            for name in sorted(set(names)):
                ids = {k for lng in {own, 'en'} for k, v in cats[lng].items() if keep(k) and v == name}
                variants = {json.dumps({lng: cats[lng][k] for lng in LANGUAGES if k in cats[lng]}, sort_keys=True) for k in ids}
                if len(variants) != 1:
                    continue  # unknown, or the same name for different places: leave it out
                names_by_lng = {lng: alt for lng, alt in json.loads(variants.pop()).items() if fold(alt) != fold(name)}
                if names_by_lng:
                    result.setdefault(cc, {}).setdefault(level, {})[name] = names_by_lng
    target = ROOT / 'server/src/seed/place-names.json'
    target.write_text(json.dumps(result, ensure_ascii=False, indent=2, sort_keys=True) + '\n', encoding='utf-8')
    print(f'{target.relative_to(ROOT)}: {sum(len(n) for c in result.values() for n in c.values())} places')


if __name__ == '__main__':
    main()
