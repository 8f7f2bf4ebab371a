"""Issue 29, item 3: a file list read class by class, shuffled by a buffer much smaller than it
(PL205). The rule's own examples hold the single-file shapes; here: lists built in one module and
shuffled in another, and what the message says about the source."""
from __future__ import annotations

import textwrap
from pathlib import Path

from pipelint import check_paths, check_source
from pipelint.engine import lint_source
from rule_options import settings_with


def _write(root: Path, files: dict[str, str]) -> None:
    (root / ".git").mkdir()
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))


def _pl205(source: str) -> list[str]:
    return [d.message for d in check_source(textwrap.dedent(source).lstrip("\n"), "train.py", select=["PL205"])]


_LIST_IMAGES = """
    import os
    import random


    def list_images(root, shuffle=False):
        paths, labels = [], []
        for index, label in enumerate(sorted(os.listdir(root))):
            for name in sorted(os.listdir(os.path.join(root, label))):
                paths.append(os.path.join(root, label, name))
                labels.append(index)
        {mix}
        return paths, labels
    """

_TRAIN = """
    import tensorflow as tf

    from data import list_images

    paths, labels = list_images('data/train')
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    ds = ds.map(load_image, num_parallel_calls=tf.data.AUTOTUNE).shuffle(1000).batch(32)
    model.fit(ds, epochs=10)
    """


def test_PL205_a_class_ordered_list_built_in_data_py_and_shuffled_in_train_py(tmp_path):
    _write(tmp_path, {"data.py": _LIST_IMAGES.replace("{mix}", "pass"), "train.py": _TRAIN})
    (finding,) = check_paths([tmp_path], select=["PL205"])
    assert (Path(finding.path).name, finding.line) == ("train.py", 7)
    assert "`for index, label in enumerate(sorted(os.listdir(root))):` appends one class folder's files " \
           "after another's (data.py:7)" in finding.message
    assert "size of the source unknown: the list is built from the file system" in finding.message


def test_PL205_a_list_shuffled_in_data_py_before_it_is_returned_is_mixed(tmp_path):
    _write(tmp_path, {"data.py": _LIST_IMAGES.replace("{mix}", "random.shuffle(paths)"), "train.py": _TRAIN})
    assert check_paths([tmp_path], select=["PL205"]) == []


_MAKE_DATASET = """
    import glob

    import tensorflow as tf


    def make_dataset(root):
        files = sorted(glob.glob(f'{root}/*/*.png'))
        return tf.data.Dataset.from_tensor_slices(files).map(load_image)
    """


def test_PL205_a_dataset_made_from_class_folders_in_another_module_then_shuffled_here(tmp_path):
    _write(tmp_path, {
        "data.py": _MAKE_DATASET,
        "train.py": """
            import data

            ds = data.make_dataset('images').shuffle(256).batch(32)
            model.fit(ds, epochs=3)
            """,
    })
    (finding,) = check_paths([tmp_path], select=["PL205"])
    assert (Path(finding.path).name, finding.line) == ("train.py", 3)
    assert finding.message.startswith(
        "shuffle buffer of 256 elements over a file list in class order mixes only neighbours: "
        "`sorted(glob.glob(f'{root}/*/*.png'))` lists the files folder by folder (data.py:7)")


def test_PL205_the_same_dataset_only_validated_on_in_the_other_module_is_left_alone(tmp_path):
    _write(tmp_path, {
        "data.py": _MAKE_DATASET,
        "train.py": """
            import data

            val_ds = data.make_dataset('images/val').shuffle(256).batch(32)
            model.fit(train_ds, validation_data=val_ds, epochs=3)
            """,
    })
    assert check_paths([tmp_path], select=["PL205"]) == []


_KNOWN_SIZE = """
    import os
    import tensorflow as tf
    paths = []
    for label in ['cat', 'dog', 'bird', 'fish']:
        paths.extend(sorted(os.listdir(f'data/{label}'))[:500])
    ds = tf.data.Dataset.from_tensor_slices(paths).take(2000).map(load).shuffle({buffer}).batch(32)
    model.fit(ds)
    """


def test_PL205_the_message_gives_the_size_the_classes_and_one_class_share():
    (message,) = _pl205(_KNOWN_SIZE.replace("{buffer}", "256"))
    assert ("(line 4); the list holds at most 2000 files in 4 classes (500 per class); a buffer smaller than "
            "one class's share (500) mixes at most two classes per batch.") in message


def test_PL205_a_buffer_larger_than_one_class_share_but_under_half_the_list_still_fires():
    (message,) = _pl205(_KNOWN_SIZE.replace("{buffer}", "800"))
    assert "at most 2000 files in 4 classes" in message
    assert "unless the buffer holds more than one class's files, each batch holds one or two classes" in message


def test_PL205_a_buffer_over_half_of_a_list_of_known_size_is_left_alone():
    assert _pl205(_KNOWN_SIZE.replace("{buffer}", "1500")) == []


def test_PL205_the_buffer_limit_for_lists_of_unknown_size_is_an_option():
    source = textwrap.dedent("""
        import glob
        import tensorflow as tf
        BATCH_SIZE = 32
        paths = sorted(glob.glob('data/*/*.jpg'))
        ds = tf.data.Dataset.from_tensor_slices(paths).map(load).shuffle(BATCH_SIZE * 20).batch(BATCH_SIZE)
        model.fit(ds)
        """).lstrip("\n")
    default = lint_source(source, "train.py", frozenset({"PL205"}), None)
    assert [d.message.split(":")[0] for d in default] == ["shuffle buffer of 640 elements over a file list in class order mixes only neighbours"]
    lowered = lint_source(source, "train.py", frozenset({"PL205"}),
                          settings_with({"PL205": {"class-order-buffer-size": 500}}))
    assert lowered == []


def test_PL205_one_class_list_added_to_another_and_a_sort_that_keeps_folders_together():
    (message,) = _pl205("""
        import glob
        import tensorflow as tf
        cats = glob.glob('data/cats/*.jpg')
        dogs = glob.glob('data/dogs/*.jpg')
        paths = cats + dogs
        paths.sort()
        ds = tf.data.Dataset.from_tensor_slices(paths).map(load).shuffle(1000).batch(32)
        model.fit(ds)
        """)
    assert "`cats + dogs` puts one folder's files after another's (line 5)" in message
    assert "(2 classes)" in message


def test_PL205_python_and_numpy_mixing_before_the_dataset_silences_it():
    for mixing in ("paths = np.random.permutation(paths)",
                   "paths = [paths[i] for i in np.random.permutation(len(paths))]",
                   "rng.shuffle(paths)",
                   "paths.sort(key=lambda p: hash(p))",
                   "paths = my_helpers.interleave_classes(paths)"):
        source = f"""
            import glob
            import numpy as np
            import tensorflow as tf
            paths = sorted(glob.glob('data/*/*.jpg'))
            {mixing}
            ds = tf.data.Dataset.from_tensor_slices(paths).map(load).shuffle(1000).batch(32)
            model.fit(ds)
            """
        assert _pl205(source) == [], mixing


def test_PL205_an_earlier_full_shuffle_of_the_names_mixes_the_classes():
    assert _pl205("""
        import glob
        import tensorflow as tf
        paths = sorted(glob.glob('data/*/*.jpg'))
        ds = tf.data.Dataset.from_tensor_slices(paths).shuffle(len(paths)).map(load).shuffle(640).batch(32)
        model.fit(ds)
        """) == []


def test_PL205_labels_still_in_class_order_beside_paths_that_were_mixed_do_not_fire():
    assert _pl205("""
        import os
        import numpy as np
        import tensorflow as tf
        paths, labels = [], []
        for label in ['cat', 'dog']:
            for name in os.listdir(os.path.join('data', label)):
                paths.append(os.path.join('data', label, name))
                labels.append(label)
        paths = np.random.permutation(paths)
        ds = tf.data.Dataset.from_tensor_slices((paths, labels)).map(load).shuffle(1000).batch(32)
        model.fit(ds)
        """) == []
