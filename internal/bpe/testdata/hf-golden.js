// Token ids from Hugging Face's tokenizers (the Rust library, through its Node binding) for
// the texts in texts.json: the reference internal/bpe is compared with.
const fs = require("fs");
const crypto = require("crypto");
const { Tokenizer } = require("@anush008/tokenizers");
(async () => {
  const [tokPath, textsPath] = process.argv.slice(2);
  const tok = await Tokenizer.fromFile(tokPath);
  const texts = JSON.parse(fs.readFileSync(textsPath, "utf8"));
  for (const text of texts) {
    const ids = (await tok.encode(text, null, { addSpecialTokens: false })).getIds();
    const row = { text, count: ids.length, sha256: crypto.createHash("sha256").update(ids.join(",")).digest("hex") };
    if (ids.length <= 64) row.ids = Array.from(ids);
    console.log(JSON.stringify(row));
  }
})();
