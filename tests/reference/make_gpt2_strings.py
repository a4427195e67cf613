#!/usr/bin/env python3
"""Writes tests/data/gpt2_strings.json: the strings tests/core/text/test_gpt2tokenizer encodes both with our C++
byte-level BPE and with the npm package gpt-3-encoder, and whose ids must agree.

Seeded and standard library only, so the same script always writes the same bytes:

    python3 tests/reference/make_gpt2_strings.py [--out PATH]

The two sides classify characters with different Unicode versions (the reference runs in node, whose ICU is
newer than Debian's), so every character here comes from a block that was complete long before Unicode 15
and whose general categories have not moved since; nothing is drawn from the high planes at random.
"""

import argparse
import json
import os
import random
import unicodedata

SEED = 20240517

# --- fragments -------------------------------------------------------------------------------------------

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "Hello world",
    "Hello, world!",
    "It was the best of times, it was the worst of times.",
    "Call me Ishmael.",
    "To be, or not to be: that is the question.",
    "All happy families are alike; each unhappy family is unhappy in its own way.",
    "In the beginning God created the heaven and the earth.",
    "She sells sea shells by the sea shore.",
    "How much wood would a woodchuck chuck if a woodchuck could chuck wood?",
    "Attention is all you need.",
    "The model attends to the previous token in layer 3, head 7.",
    "We trained for 100,000 steps with a learning rate of 3e-4.",
    "Transformers don't read text; they read tokens.",
    "Please don't hesitate to ask if you've got questions.",
    "I'm sure they'll be here by 5 o'clock.",
    "You're right, and we'd better hurry.",
    "Who's there? It's me, the one you've been waiting for.",
    "They've gone, haven't they?",
    "The cat's toy is under the dogs' bed.",
    "Rock 'n' roll will never die.",
    "'Twas brillig, and the slithy toves did gyre and gimble in the wabe.",
    "He said, \"I can't believe it's not butter!\"",
    "Mr. and Mrs. Dursley, of number four, Privet Drive, were proud to say that they were perfectly normal.",
    "A man, a plan, a canal: Panama.",
    "Colorless green ideas sleep furiously.",
    "The rain in Spain stays mainly in the plain.",
    "E pluribus unum.",
    "Ask not what your country can do for you.",
    "That's one small step for man, one giant leap for mankind.",
    "Houston, we've had a problem.",
    "Elementary, my dear Watson.",
    "I think, therefore I am.",
    "Knowledge is power.",
    "Time flies like an arrow; fruit flies like a banana.",
    "Buffalo buffalo Buffalo buffalo buffalo buffalo Buffalo buffalo.",
    "The old man the boat.",
    "While the man hunted the deer ran into the woods.",
    "THIS IS ALL IN CAPITAL LETTERS, ISN'T IT?",
    "this is all in lower case letters, isn't it?",
    "tHiS iS iN aLtErNaTiNg CaSe.",
    "Supercalifragilisticexpialidocious",
    "Pneumonoultramicroscopicsilicovolcanoconiosis is a long word.",
    "antidisestablishmentarianism",
    "The end.",
    "Once upon a time, there lived a king who had three daughters.",
    "Meet me at 10:30 a.m. on Jan. 5th, 2024.",
    "Version 2.0.1 fixes bug #1234 and issue GH-567.",
    "The temperature dropped to -15°C overnight.",
    "Our revenue grew 12.5% year over year to $4.2B.",
    "Call 555-0199 or +1 (800) 555-0123 ext. 42.",
    "The answer is 42.",
    "Pi is approximately 3.14159265358979323846.",
    "ISBN 978-3-16-148410-0",
    "The U.S.A. and the U.K. signed the treaty.",
    "e.g., i.e., etc., vs., cf.",
    "Dr. Smith's patients' records were lost.",
    "Jones's book and the Joneses' house.",
    "I'll, you'll, he'll, she'll, we'll, they'll.",
    "I'd, you'd, he'd, she'd, we'd, they'd.",
    "I've, you've, we've, they've.",
    "I'm, you're, we're, they're.",
    "isn't, aren't, wasn't, weren't, don't, doesn't, didn't, won't, can't.",
]

WORDS = (
    "the of and to in is was that for it as with be on not he by are this at from his but have an they "
    "which one you were her all she there would their we him been has when who will more no if out so said "
    "what up its about into than them can only other new some could time these two may then do first any my "
    "now such like our over man me even most made after also did many before must through back years where "
    "much your way well down should because each just those people how too little state good very make world "
    "still own see men work long get here between both life being under never day same another know while "
    "last might us great old year off come since against go came right used take three attention layer head "
    "token model weight query key value softmax gradient matrix vector embedding encoder decoder sequence "
    "position language translate sentence word letter number string banana apple orange computer science"
).split()

CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]
UPPER_CONTRACTIONS = ["'S", "'T", "'RE", "'VE", "'M", "'LL", "'D"]

APOSTROPHE_CASES = [
    "I'm", "it's", "IT'S", "It'S", "don't", "DON'T", "they're", "THEY'RE", "we've", "WE'VE", "you'll",
    "YOU'LL", "he'd", "HE'D", "I'M", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "'RE", "'",
    "''", "'''", "' '", "'x", "'sa", "'st", "'red", "'llama", "'dd", "'mm", "x's", "x'S", "a'b", "'s's",
    "'s'", "''s", "'''s", "s'", "dogs'", " 's", " 's ", "  's", "\t's", "\n's", "1's", "1980's", "'90s",
    "rock 'n' roll", "'Tis", "'tis", "ol'", "ma'am", "o'clock", "O'Brien", "D'Artagnan", "y'all", "y'all'd've",
    "shouldn't've", "'re'", "'ve'", "'m'", "'ll'", "'d'", "'t'", "it’s", "don’t", "‘quoted’", "“double”",
    "\"quoted\"", "'single'", "\"'mixed'\"", "`backtick`", "´acute´", "‚low‚", "„low„", "«guillemets»",
    "‹single›", "'s\n", "'ll\t", "''ll", "don''t", "can't't", "'-s", "'.s", "'\u00a0s", "'\u3000s",
    "'é", "'ß", "'ΣΑ", "'日本", "'😀", "'123", "'1", "'s1", "'s😀",
]

NUMBERS = [
    "0", "1", "42", "007", "123", "1234", "12345", "123456789", "1234567890123456789",
    "3.14", "3.14159", "-1", "+1", "1,000", "1,000,000", "1.000.000,00", "10%", "99.9%", "1e10", "1e-10",
    "2.5e+3", "0x1F", "0xDEADBEEF", "0b1010", "0o777", "1/2", "3/4", "1:1", "16:9", "24/7", "9-5", "v1.2.3",
    "2024-01-15", "15/01/2024", "12:34:56", "1st", "2nd", "3rd", "4th", "21st", "100th", "abc123", "123abc",
    "a1b2c3", "A1", "B12", "x86_64", "arm64", "ipv6", "mp3", "h264", "4K", "8GB", "1080p", "COVID-19",
    "R2D2", "C3PO", "route66", "3D", "2FA", "utf8", "iso8859", "٣٤٥", "۱۲۳", "१२३", "০১২", "๑๒๓", "１２３",
    "½", "¾", "⅓", "²", "³", "¹", "x²", "10³", "Ⅻ", "ⅻ", "①②③", "⑩", "〇", "一二三", "𝟙𝟚𝟛", "٣abc",
    "abc١٢٣", "12½", "3¾cups", "Ⅻo'clock",
]

WHITESPACE = [
    " ", "  ", "   ", "    ", "\t", "\t\t", "\n", "\n\n", "\n\n\n", "\r\n", "\r\n\r\n", "\r", " \n",
    "\n ", " \t ", "\t \n", "\u00a0", "\u00a0\u00a0", " \u00a0", "\u00a0 ", "\u3000", "\u3000\u3000",
    "\u2028", "\u2029", "\ufeff", "\u0085", "\u000b", "\u000c", "\u2000", "\u2003", "\u2009", "\u200a",
    "\u202f", "\u205f", "\u1680", "\u200b", "\u2060", "\u180e",
]

LATIN = [
    "café", "naïve", "résumé", "Ångström", "façade", "Łódź", "Dvořák", "São Paulo", "Øresund", "straße",
    "STRASSE", "œuvre", "Æsir", "Ærø", "jalapeño", "piñata", "crème brûlée", "Zürich", "Kraków", "Türkiye",
    "İstanbul", "ıi", "Đorđe", "Ðóra", "þorn", "Þingvellir", "ŉ", "ĳssel", "Ĳssel", "ǅemal", "ǈ", "ǋ",
    "ﬁnance", "ﬂower", "Ȣ", "ƒ", "ſ", "ß", "ẞ", "Ŵales", "Ŷ", "ğ", "ş", "ţ", "ĉ", "ĝ", "ĥ", "ĵ", "ŝ", "ŭ",
    "cafe\u0301", "nai\u0308ve", "Ångstro\u0308m", "A\u030angstrom", "n\u0303", "e\u0301\u0301",
    "a\u0300\u0301\u0302\u0303\u0304", "Z\u0335\u0336a\u0337l\u0338g\u0334o", "\u0301", "\u0301abc",
    "o\u0308\u0304", "c\u0327", "i\u0307", "u\u031b", "Vie\u0323\u0302t Nam", "Việt Nam", "Tiếng Việt",
    "Ελληνικά", "Ä Ö Ü ä ö ü", "É È Ê Ë", "ÀÁÂÃÄÅ", "àáâãäå",
]

SCRIPTS = [
    # Greek
    "Γειά σου Κόσμε", "αβγδεζηθικλμνξοπρστυφχψω", "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ", "Ὀδυσσεύς", "ἀρχή",
    "ς σ Σ", "λόγος καὶ ἔργον", "π ≈ 3.14", "μm", "Ωmega",
    # Cyrillic
    "Привет, мир!", "Съешь же ещё этих мягких французских булок, да выпей чаю.", "Ёлка", "Їжак", "Ґанок",
    "Ђорђе", "Љубав", "Њива", "Џеп", "Ћирилица", "Москва 2024", "ПРИВЕТ мир", "Ѣ ѣ Ѳ ѳ", "Ҷ ҷ Ӂ ӂ",
    # Armenian, Georgian
    "Բարեւ աշխարհ", "გამარჯობა მსოფლიო",
    # Arabic
    "مرحبا بالعالم", "السَّلَامُ عَلَيْكُمْ", "بِسْمِ ٱللَّٰهِ", "العربية ١٢٣", "كتاب، قلم؛ ورقة؟",
    "اللغة العربية", "ـــ", "ﷲ", "ﻻ", "فارسی ۱۴۰۲", "اردو",
    # Hebrew
    "שלום עולם", "בְּרֵאשִׁית בָּרָא", "עברית 123", "״ציטוט״", "א׳ ב׳", "ﬠ", "יִשְׂרָאֵל",
    # Indic
    "नमस्ते दुनिया", "हिन्दी", "क्षत्रिय", "संस्कृतम्", "१९४७", "ॐ", "বাংলা ভাষা", "ਪੰਜਾਬੀ", "ગુજરાતી",
    "தமிழ்", "తెలుగు", "ಕನ್ನಡ", "മലയാളം", "සිංහල",
    # Southeast Asian
    "สวัสดีชาวโลก", "ภาษาไทย", "กรุงเทพมหานคร", "๑๒๓", "ພາສາລາວ", "ភាសាខ្មែរ", "မြန်မာဘာသာ",
    # CJK
    "你好，世界！", "中文字符", "繁體中文", "漢字", "日本語のテキスト", "ひらがな", "カタカナ", "ｶﾀｶﾅ",
    "東京タワー", "こんにちは世界", "「引用」", "『二重』", "【注意】", "〜", "ー", "・", "。、", "㈱",
    "㍿", "⺀", "丨", "〆", "々", "〻",
    # Hangul
    "안녕하세요 세계", "한국어", "ㄱㄴㄷ", "각", "가나다라마바사", "서울특별시",
    # Others
    "ᚠᚢᚦᚨᚱᚲ", "ⴰⵣⵓⵍ", "ᏣᎳᎩ", "ᐃᓄᒃᑎᑐᑦ", "አማርኛ", "ꦧꦱꦗꦮ", "ⰀⰁⰂ", "𐌰𐌱𐌲", "𐍈",
]

EMOJI = [
    "😀", "😂", "🤣", "❤️", "❤", "♥", "👍", "👍🏻", "👍🏼", "👍🏽", "👍🏾", "👍🏿", "👋🏽", "🙏🏿",
    "👨‍👩‍👧‍👦", "👩‍❤️‍👨", "👨‍💻", "👩🏽‍🚀", "🏳️‍🌈", "🏴‍☠️", "🧑‍🤝‍🧑", "👁️‍🗨️",
    "🇺🇸", "🇬🇧", "🇯🇵", "🇩🇪🇫🇷", "🇪🇸🇲🇽🇦🇷", "🇺", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "1️⃣", "#️⃣", "*️⃣", "0⃣", "🔟",
    "☺", "☺️", "✔", "✔️", "⭐", "🌟", "🔥", "🎉", "🚀", "🐍", "🦀", "🍕", "🍣", "🥺", "🤖", "💯",
    "😀😀😀", "🙂🙃", "a😀b", "😀a", "a😀", " 😀", "😀 ", "hello 👋 world", "I ❤️ NY", "🤷‍♂️", "🤷‍♀️",
    "🤦🏼‍♂️", "™", "©", "®", "Ⓜ️", "🅰️", "🆗", "🈚", "〽️", "⌚", "⏰", "☕", "⚡", "⛄", "✨",
]

SYMBOLS = [
    "∑", "∫", "√", "∞", "≠", "≤", "≥", "±", "×", "÷", "∂", "∇", "∈", "∉", "∀", "∃", "∅", "∧", "∨",
    "¬", "⊂", "⊆", "∪", "∩", "→", "←", "↔", "⇒", "⇔", "↑↓", "ℝ", "ℕ", "ℤ", "ℚ", "ℂ", "ℵ", "ℏ", "℃",
    "℉", "№", "℗", "℠", "Ω", "Å", "∀x∈ℝ: x²≥0", "E = mc²", "a² + b² = c²", "∫₀^∞ e^(-x²) dx = √π/2",
    "∑_{i=1}^{n} i = n(n+1)/2", "f(x) = 2x + 3", "x ≤ y ≤ z", "P(A|B) = P(B|A)P(A)/P(B)", "λx.x",
    "$", "€", "£", "¥", "₹", "₩", "₽", "₿", "¢", "₪", "₫", "₴", "₺", "₱", "฿", "$100", "€50,00",
    "£3.50", "¥1000", "₹2,500", "US$5", "5$", "10 €", "$$$", "¤",
    "§", "¶", "†", "‡", "•", "‣", "◦", "※", "‰", "‱", "′", "″", "‴", "°", "µ", "·", "¦", "¨", "¯",
    "´", "¸", "¿", "¡", "♠♣♥♦", "♩♪♫♬", "☀☁☂☃", "★☆", "■□▢▣", "●○◎", "▲△▼▽", "◆◇", "─│┌┐└┘",
    "═║╔╗╚╝", "░▒▓█", "⌘⌥⇧⌃", "␣", "⏎", "⌫", "©2024", "™®", "⚠", "☢", "☯", "☮", "✓✗", "✂",
    "�", "\ufffd\ufffd", "\u00ad", "soft\u00adhyphen", "zero\u200bwidth", "join\u200djoiner",
    "non\u200cjoiner", "\u200e", "\u200f", "\u202a\u202c", "\u2066x\u2069", "\u061c", "\u0000",
    "\u0001", "\u001b[31mred\u001b[0m", "\u007f", "\u0080", "\u009f", "\ue000", "\uf8ff", "\U000f0000",
]

CODE = [
    "def f(x):\n    return x**2\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}",
    "int main(int argc, char** argv) { return 0; }",
    "#include <iostream>\nint main() {\n    std::cout << \"Hello\\n\";\n}\n",
    "<div class=\"container\"><p>Hello</p></div>",
    "<!DOCTYPE html>\n<html lang=\"en\">",
    "SELECT * FROM users WHERE id = 42 AND name LIKE '%smith%';",
    "{\"key\": \"value\", \"n\": [1, 2, 3], \"ok\": true, \"none\": null}",
    "const f = (x) => x * 2;",
    "let s = `template ${name}!`;",
    "a && b || !c",
    "x += 1; y -= 2; z *= 3; w /= 4; v %= 5;",
    "if (a == b && c != d) { return; }",
    "std::vector<std::pair<int, std::string>> v;",
    "fn main() { println!(\"{}\", 1 + 2); }",
    "import numpy as np\nnp.zeros((3, 4), dtype=np.float32)",
    "^[a-zA-Z0-9_.+-]+@[a-zA-Z0-9-]+\\.[a-zA-Z0-9-.]+$",
    "ls -la | grep '.txt' > out.log 2>&1",
    "git commit -m \"Fix bug\" && git push origin main",
    "$ echo $HOME",
    "#!/usr/bin/env bash\nset -euo pipefail\n",
    "    indented with spaces",
    "\tindented with a tab",
    "        deeply\n            nested\n                code",
    "# Heading\n\n* item one\n* item two\n\n```python\nprint(1)\n```",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "key=value\nother_key = other value\n",
    "[section]\nname = \"x\"",
    "// comment\n/* block */",
    "/** Javadoc @param x the thing */",
    "x->y->z",
    "a::b::c",
    "i++; --j;",
    "0xFF & 0x0F | 0x10 ^ ~0",
    "arr[i][j] = arr[j][i];",
    "print(f\"{x:>10.3f}\")",
    "__init__(self, *args, **kwargs)",
    "CamelCaseIdentifier snake_case_identifier SCREAMING_CASE kebab-case",
    "getElementById('main').innerHTML",
    "@decorator\nclass Foo(Bar):\n    pass",
    "<?php echo 'hi'; ?>",
    "\\begin{equation} E = mc^2 \\end{equation}",
    "\\frac{1}{2} + \\sqrt{x}",
    "C:\\Users\\name\\Documents\\file.txt",
    "/usr/local/bin/python3",
    "~/.config/app/settings.json",
    "../../relative/path",
    "foo.bar.baz()",
    "a\tb\tc\n1\t2\t3",
    "name,age,city\nAlice,30,Paris\n",
    "\"quoted, field\",\"another \"\"one\"\"\"",
    "base64: SGVsbG8gV29ybGQh==",
    "uuid: 123e4567-e89b-12d3-a456-426614174000",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
]

URLS = [
    "https://example.com",
    "https://example.com/path/to/page?q=1&r=two#frag",
    "http://www.example.org/~user/index.html",
    "https://en.wikipedia.org/wiki/Transformer_(machine_learning_model)",
    "https://github.com/openai/gpt-2/blob/master/src/encoder.py",
    "mailto:someone@example.com",
    "ftp://files.example.net/pub/file-1.2.tar.gz",
    "www.example.co.uk",
    "user@example.com",
    "first.last+tag@sub.example.org",
    "http://localhost:8080/api/v1/items?limit=10&offset=20",
    "https://例え.jp/パス",
    "https://xn--r8jz45g.jp",
    "http://192.168.0.1:80/",
    "http://[::1]:3000/",
    "file:///home/user/doc.pdf",
    "https://example.com/search?q=hello%20world&lang=en-US",
    "https://t.co/AbC123xYz",
    "@username #hashtag",
    "#NLP #MachineLearning @openai",
]

PUNCTUATION = [
    "!", "?", ".", ",", ";", ":", "...", "…", "!!!", "???", "?!", "!?", "?!?!", "!!!111", "--", "---", "—",
    "–", "-", "―", "(", ")", "()", "[]", "{}", "<>", "([{<>}])", "\"", "\"\"", "''", "\"'\"", "'\"'",
    "..", ". . .", "*", "**", "***", "_", "__", "___", "~", "~~", "^", "^^", "&", "&&", "|", "||", "\\",
    "\\\\", "/", "//", "@", "@@", "#", "##", "###", "%", "%%", "=", "==", "===", "!=", "!==", "<=", ">=",
    "=>", "->", "<-", "<=>", "+", "++", "+=", "-=", "=/=", ":-)", ":-(", ";-)", ":D", "XD", "<3", "</3",
    "¯\\_(ツ)_/¯", "(╯°□°)╯︵ ┻━┻", "ʕ•ᴥ•ʔ", "( ͡° ͜ʖ ͡°)", "¡Hola!", "¿Qué?", "«Bonjour»", "„Hallo“",
    "「こんにちは」", "《书名》", "【】", "、。", "，", "：", "；", "！", "？", "（括弧）",
]

# The reference looks a pair up by the text "a,b", so tokens holding commas are where that lookup could part
# from one by the pair itself.
COMMAS = [
    ",", ",,", ",,,", ",,,,", ",,,,,,,,", ", ,", ",\",", "\",\"", "\",\",\",\"", "\",\"\"", "','", "',','",
    "'],['", "[\"x\"],[\"y\"]", "[[1,2],[3,4]]", "{\"a\":1},{\"b\":2}", "},\"", "),\"", "],\"", ".\",\"",
    ".,\"", " ,\"", "\"],\"", "'\"", "',\"", "a,,b", "1,,,2", "x, y, z", "a ,b , c", "\", \"", "', '",
    "(1,2),(3,4)", "f(a,b,c)", ",.", ".,", ",-", "-,", "=,=", "\t,\t", "\n,\n", ",\n", "日,本", "😀,😀",
]

SEPARATORS = [" ", " ", " ", " ", " ", "", "  ", "\t", "\n", "\n\n", "\r\n", "\u00a0", "\u3000", ", ", ". ",
              " - ", "'", "’", "\u2028", "\ufeff", "\u0085", "   ", " \n", "\n "]

# Ranges of well-established blocks to draw single characters from; every code point in them was assigned
# by Unicode 6 and keeps its category.
RANGES = [
    (0x0021, 0x007E), (0x00A1, 0x00FF), (0x0100, 0x017F), (0x0180, 0x024F), (0x0250, 0x02AF),
    (0x0386, 0x0386), (0x0388, 0x038A), (0x038C, 0x038C), (0x038E, 0x03A1), (0x03A3, 0x03CE),
    (0x0400, 0x0482), (0x048A, 0x04FF), (0x0531, 0x0556), (0x0561, 0x0586), (0x05D0, 0x05EA),
    (0x0621, 0x063A), (0x0641, 0x064A), (0x0660, 0x0669), (0x0905, 0x0939), (0x0966, 0x096F),
    (0x0E01, 0x0E30), (0x0E50, 0x0E59), (0x10D0, 0x10FA), (0x1E00, 0x1EFF), (0x2010, 0x2027),
    (0x2030, 0x205E), (0x20A0, 0x20B9), (0x2100, 0x214F), (0x2190, 0x21FF), (0x2200, 0x22FF),
    (0x2460, 0x24FF), (0x2500, 0x257F), (0x25A0, 0x25FF), (0x2600, 0x26FF), (0x3041, 0x3096),
    (0x30A1, 0x30FA), (0x4E00, 0x9FA5), (0xAC00, 0xD7A3), (0xFF01, 0xFF5E), (0x1F600, 0x1F64F),
    (0x1F300, 0x1F5FF),
]

SPACE_CHARS = [" ", "\t", "\n", "\r", "\u00a0", "\u3000", "\u2028", "\u2029", "\ufeff", "\u0085", "\u000b",
               "\u000c", "\u2003", "\u202f"]


# --- generated strings -----------------------------------------------------------------------------------

def random_char(rng):
    lo, hi = rng.choice(RANGES)
    return chr(rng.randint(lo, hi))


def english_sentence(rng):
    n = rng.randint(3, 14)
    words = [rng.choice(WORDS) for _ in range(n)]
    if rng.random() < 0.7:
        words[0] = words[0].capitalize()
    for i in range(n):
        r = rng.random()
        if r < 0.12:
            words[i] += rng.choice(CONTRACTIONS)
        elif r < 0.15:
            words[i] = words[i].upper() + rng.choice(UPPER_CONTRACTIONS)
        elif r < 0.2:
            words[i] += rng.choice([",", ";", ":", " -", "!"])
        elif r < 0.24:
            words[i] = str(rng.randint(0, 10 ** rng.randint(1, 7)))
    return " ".join(words) + rng.choice([".", ".", "!", "?", "", "...", "\n", "  "])


def mixed(rng):
    pools = [WORDS, NUMBERS, LATIN, SCRIPTS, EMOJI, SYMBOLS, PUNCTUATION, APOSTROPHE_CASES, URLS, COMMAS]
    parts = []
    for _ in range(rng.randint(2, 8)):
        parts.append(rng.choice(rng.choice(pools)))
        parts.append(rng.choice(SEPARATORS))
    s = "".join(parts)
    return s if rng.random() < 0.6 else s.rstrip()


def whitespace_play(rng):
    # Runs of mixed whitespace before, between and after words: where \s+(?!\S) gives a run's last
    # character to the word after it.
    out = []
    for _ in range(rng.randint(1, 5)):
        out.append("".join(rng.choice(SPACE_CHARS) for _ in range(rng.randint(0, 4))))
        out.append(rng.choice(WORDS + NUMBERS[:40] + PUNCTUATION[:30] + CONTRACTIONS + ["'", "😀", "é", "日本"]))
    if rng.random() < 0.5:
        out.append("".join(rng.choice(SPACE_CHARS) for _ in range(rng.randint(1, 4))))
    return "".join(out)


def random_chars(rng):
    n = rng.randint(1, 24)
    chars = []
    for _ in range(n):
        r = rng.random()
        if r < 0.15:
            chars.append(rng.choice(SPACE_CHARS))
        elif r < 0.25:
            chars.append(rng.choice(["'", "s", "t", "re", "ve", "m", "ll", "d", "S", "LL"]))
        else:
            chars.append(random_char(rng))
    return "".join(chars)


def long_text(rng):
    paras = []
    for _ in range(rng.randint(2, 5)):
        paras.append(" ".join(english_sentence(rng).strip() for _ in range(rng.randint(1, 4))))
    return rng.choice(["\n\n", "\n", "\r\n\r\n", "\n \n"]).join(paras)


def hand_written():
    out = []
    out += SENTENCES + APOSTROPHE_CASES + NUMBERS + WHITESPACE + LATIN + SCRIPTS + EMOJI + SYMBOLS + CODE
    out += URLS + PUNCTUATION + COMMAS
    out += ["", "a", "A", "z", "é", "ß", "1", "9", "'", "\"", "日", "😀", "  leading", "trailing  ",
            "  both  ", "\tleading tab", "trailing tab\t", "\nleading newline", "trailing newline\n",
            "a\n\nb", "a\r\nb", "a \n b", "a  b", "a   b", "a\t\tb", "word\u00a0word", "word\u3000word",
            "line\u2028separator", "para\u2029separator", "bom\ufeffinside", "\ufeffbom first",
            "next\u0085line", "a\u000bb", "a\u000cb", " a", "  a", "   a", "a ", "a  ", " ", "\n", "\t",
            "\r\n", "  \n  ", "\n\n\n\nend", "end\n\n\n\n", " \u00a0a", "\u00a0 a", " \u3000a", "\u3000 a",
            "  1", "  !", "  😀", "  é", "\n\n1", "\t\t!"]
    # Each contraction after letters, digits, spaces, punctuation and at the start, in both cases.
    for c in CONTRACTIONS + UPPER_CONTRACTIONS:
        for before in ["it", "IT", "1", " ", "  ", "!", "", "\n", "é", "日"]:
            out.append(before + c)
            out.append(before + c + "x")
    return out


def generated(rng):
    makers = [(english_sentence, 300), (mixed, 300), (whitespace_play, 160), (random_chars, 200),
              (long_text, 40)]
    out = []
    for make, count in makers:
        out += [make(rng) for _ in range(count)]
    return out


# --- output ----------------------------------------------------------------------------------------------

def escape_invisible(line):
    # json.dumps(ensure_ascii=False) writes format characters and line separators as they are; escaping
    # them keeps the file readable and safe from editors that rewrite them.
    out = []
    for ch in line:
        cat = unicodedata.category(ch)
        if ord(ch) > 0x7E and cat[0] in "CZ":
            cp = ord(ch)
            if cp > 0xFFFF:
                cp -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)))
            else:
                out.append("\\u%04x" % cp)
        else:
            out.append(ch)
    return "".join(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(here, "..", "data", "gpt2_strings.json"))
    args = parser.parse_args()

    rng = random.Random(SEED)
    strings = list(dict.fromkeys(hand_written() + generated(rng)))  # the first of each, in order
    lines = [escape_invisible(json.dumps(s, ensure_ascii=False)) for s in strings]
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write("[\n" + ",\n".join(lines) + "\n]\n")
    print("%d strings -> %s" % (len(strings), os.path.normpath(args.out)))


if __name__ == "__main__":
    main()
