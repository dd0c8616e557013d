"""The poem HTML allow-list against XSS vectors: whatever staff paste, only the allow-list reaches
players, and staff are told what was removed."""

import re
from html.parser import HTMLParser

import pytest

from challenges.sanitize import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_TAGS,
    URL_SCHEMES,
    removed_parts,
    sanitize_html,
)

XSS_VECTORS = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=https://evil.example/x.js></SCRIPT>",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    "<img src=x onerror=alert(1)>",
    '<img src="javascript:alert(1)">',
    "<IMG SRC=JaVaScRiPt:alert(1)>",
    "<body onload=alert(1)>",
    "<p onclick=alert(1)>click</p>",
    '<p onmouseover="alert(1)">hover</p>',
    '<a href="javascript:alert(1)">link</a>',
    '<a href="JAVASCRIPT:alert(1)">link</a>',
    '<a href=" javascript:alert(1)">link</a>',
    '<a href="java\tscript:alert(1)">link</a>',
    '<a href="java&#x09;script:alert(1)">link</a>',
    '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">link</a>',
    '<a href="vbscript:msgbox(1)">link</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">link</a>',
    '<a href="data:text/html,<script>alert(1)</script>">link</a>',
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    '<iframe src="javascript:alert(1)"></iframe>',
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    '<object data="javascript:alert(1)"></object>',
    '<embed src="javascript:alert(1)">',
    '<form action="javascript:alert(1)"><button>go</button></form>',
    '<input autofocus onfocus="alert(1)">',
    '<details open ontoggle="alert(1)">x</details>',
    "<style>body{background:url(javascript:alert(1))}</style>",
    '<p style="background:url(javascript:alert(1))">styled</p>',
    '<div style="behavior: url(x.htc)">x</div>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<link rel="stylesheet" href="javascript:alert(1)">',
    '<base href="javascript:alert(1)//">',
    "<!--<img src=x onerror=alert(1)>-->",
    '<p title="</p><script>alert(1)</script>">quoted</p>',
    '<a href="https://ok.example" onclick="alert(1)" style="color:red" target="_blank">ok</a>',
    "<<script>script>alert(1)<</script>/script>",
    "<img src=x:alert(alt) onerror=eval(src) alt=0>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    "<template><script>alert(1)</script></template>",
    '<video><source onerror="alert(1)"></video>',
    "<audio src=x onerror=alert(1)>",
    "<marquee onstart=alert(1)>x</marquee>",
    '<table background="javascript:alert(1)"><tr><td>x</td></tr></table>',
    "<p>unclosed <em>emphasis <strong>and <a href='https://x.example'>link",
    '<a href="&#x6A;avascript&colon;alert(1)">entities</a>',
    "<xss onafterscriptexecute=alert(1)><script>1</script>",
    "<p>\u0000<script>alert(1)</script></p>",
]

DANGER = re.compile(
    r"<\s*(script|svg|math|iframe|object|embed|style|img|form|input|meta|link|base)|javascript:|vbscript:|data:|\son\w+\s*=|style\s*=",
    re.I,
)


class Audit(HTMLParser):
    """Every tag and attribute of the output, as a browser's tokenizer sees it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag not in ALLOWED_TAGS:
            self.problems.append(f"tag {tag}")
        for name, value in attrs:
            if name == "rel" and tag == "a":
                if value != "noopener noreferrer":
                    self.problems.append(f"rel {value}")
                continue
            if name not in ALLOWED_ATTRIBUTES.get(tag, set()):
                self.problems.append(f"attribute {name} on {tag}")
            if name == "href":
                cleaned = re.sub(r"[\x00-\x20\x7f]", "", value or "").lower()
                scheme = re.match(r"^([a-z][a-z0-9+.\-]*):", cleaned)
                if scheme and scheme.group(1) not in URL_SCHEMES:
                    self.problems.append(f"href scheme {scheme.group(1)}")

    handle_startendtag = handle_starttag

    def handle_comment(self, data) -> None:
        self.problems.append("comment")


def test_there_are_at_least_30_vectors():
    assert len(set(XSS_VECTORS)) >= 30


@pytest.mark.parametrize("vector", XSS_VECTORS)
def test_no_vector_survives(vector):
    clean = sanitize_html(vector)
    assert not DANGER.search(clean), clean
    audit = Audit()
    audit.feed(clean)
    audit.close()
    assert audit.problems == [], (clean, audit.problems)
    assert sanitize_html(clean) == clean  # stable: saving again changes nothing


@pytest.mark.parametrize("vector", [v for v in XSS_VECTORS if "unclosed" not in v])
def test_staff_are_told_something_was_removed(vector):
    assert removed_parts(vector), vector


def test_the_allow_list_is_kept_as_written():
    html = (
        "<h2>The Steps</h2><p>Line one<br>line two</p><p><em>soft</em> and <strong>hard</strong>, "
        "<i>i</i> <b>b</b></p><ul><li>one</li></ul><ol><li>two</li></ol><h6>small</h6>"
    )
    assert sanitize_html(html) == html
    assert removed_parts(html) == []


def test_links_keep_safe_urls_and_get_noopener():
    html = (
        '<a href="https://example.org/a?b=1&amp;c=2" title="t">a</a> <a href="mailto:poet@example.org">m</a> '
        '<a href="/about">r</a>'
    )
    assert sanitize_html(html) == (
        '<a href="https://example.org/a?b=1&amp;c=2" title="t" rel="noopener noreferrer">a</a> '
        '<a href="mailto:poet@example.org" rel="noopener noreferrer">m</a> '
        '<a href="/about" rel="noopener noreferrer">r</a>'
    )


def test_the_report_names_what_went():
    assert removed_parts('<p style="x" onclick="y">a</p><script>z</script><a href="javascript:q">l</a><!-- c -->') == [
        '"style" attribute on <p>',
        '"onclick" attribute on <p>',
        "<script> element",
        "javascript: link",
        "HTML comment",
    ]


@pytest.mark.django_db
def test_the_model_sanitises_whatever_path_writes_it(make_challenge):
    # Not only the admin form: a service or a shell writing the row gets the allow-list too.
    challenge = make_challenge(publish=False)
    challenge.poem_text = "<p>ok</p><img src=x onerror=alert(1)>"
    challenge.instructions_text = '<a href="javascript:alert(1)">x</a>'
    challenge.save()
    challenge.refresh_from_db()
    assert challenge.poem_text == "<p>ok</p>"
    assert challenge.instructions_text == '<a rel="noopener noreferrer">x</a>'
