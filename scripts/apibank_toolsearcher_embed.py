"""Embedding fallback for API-Bank's ToolSearcher 'official' scorer, for users who have the model.

toolgauge scores a ToolSearcher call from the reference's frozen keyword cache; keywords not in the cache need the
reference's embedding search, which this script performs exactly as the reference runner does: the keywords and
every catalog item's desc_for_search encoded with sentence-transformers/paraphrase-MiniLM-L3-v2 (or
$APIBANK_TOOLSEARCHER_MODEL, on $APIBANK_TOOLSEARCHER_DEVICE, default cpu), cosine similarity, the first item with
the highest similarity strictly above 0.

Protocol (one request per run): an EmbeddingRequest {"level", "keywords", "items": [{"name", "desc_for_search"}]}
as JSON on stdin; {"name": "<best item>"} or {"name": null} on stdout. Needs `pip install sentence-transformers`
and the model in the Hugging Face cache (or network access to download it).
"""
import json
import os
import sys


def main():
    from sentence_transformers import SentenceTransformer, util

    req = json.load(sys.stdin)
    model = SentenceTransformer(
        os.environ.get("APIBANK_TOOLSEARCHER_MODEL", "sentence-transformers/paraphrase-MiniLM-L3-v2"),
        device=os.environ.get("APIBANK_TOOLSEARCHER_DEVICE", "cpu"),
    )
    kw_emb = model.encode(req["keywords"])
    best, best_score = None, 0.0
    for item in req["items"]:
        score = util.cos_sim(kw_emb, model.encode(item["desc_for_search"])).item()
        if score > best_score:
            best, best_score = item["name"], score
    json.dump({"name": best}, sys.stdout)


if __name__ == "__main__":
    main()
