"""Issue 10: the model follows datasets, mapped functions, optimizers and consumers the way real
projects write them."""
from __future__ import annotations

import textwrap

import libcst as cst

from pipelint.model import LOOKS, NOT_TRAINING, PipelineModel


def build(source: str) -> PipelineModel:
    return PipelineModel.build(cst.parse_module(textwrap.dedent(source)))


def paths_at(model: PipelineModel, name: str) -> list[tuple[str, list[str]]]:
    (site,) = list(model.ops(name))
    return sorted((p.origin.kind.rsplit(".", 1)[-1], [op.name for op in p.ops]) for p in site.prefixes)


def test_a_dataset_subclass_built_in_new_is_that_dataset():
    model = build("""
        import tensorflow as tf
        class Reader(tf.data.Dataset):
            def __new__(cls, n=3):
                return tf.data.Dataset.from_generator(gen, output_signature=spec, args=(n,))
        ds = Reader(5).map(f).batch(2)
    """)
    assert paths_at(model, "batch") == [("from_generator", ["map"])]


def test_a_class_with_new_that_is_not_a_dataset_subclass_stays_an_object():
    model = build("""
        import tensorflow as tf
        class Rows:
            def __new__(cls, path):
                return tf.data.Dataset.from_tensor_slices(path)
        Rows('a').map(f).cache()
    """)
    assert list(model.ops("cache")) == []


def test_a_dataset_handed_to_a_method_of_a_local_instance_is_consumed_there():
    model = build("""
        import tensorflow as tf
        class Trainer:
            def train(self, dataset):
                for batch in dataset:
                    self.step(batch)
        ds = tf.data.TFRecordDataset(files).batch(8)
        Trainer().train(ds)
    """)
    (consumer,) = [c for c in model.consumers if c.kind == "for"]
    assert [op.name for op in consumer.value.paths[0].ops] == ["batch"]


def test_zip_and_sample_from_datasets_continue_their_inputs_paths():
    model = build("""
        import tensorflow as tf
        a = tf.data.TFRecordDataset(files).map(f)
        b = tf.data.Dataset.from_tensor_slices(labels)
        counter = tf.data.Dataset.counter()
        pairs = tf.data.Dataset.zip((a, b, counter)).cache()
        mixed = tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5]).shuffle(9)
    """)
    assert paths_at(model, "cache") == [("TFRecordDataset", ["map", "zip"]), ("from_tensor_slices", ["zip"])]
    assert paths_at(model, "shuffle") == [("TFRecordDataset", ["map", "sample_from_datasets"]),
                                          ("from_tensor_slices", ["sample_from_datasets"])]


def test_concatenate_in_a_loop_keeps_both_sides():
    model = build("""
        import tensorflow as tf
        ds = tf.data.TFRecordDataset('a').batch(4)
        for name in names:
            part = tf.data.TFRecordDataset(name).map(f)
            ds = ds.concatenate(part)
        ds = ds.cache()
    """)
    assert paths_at(model, "cache") == [("TFRecordDataset", ["batch"]), ("TFRecordDataset", ["batch", "concatenate"]),
                                        ("TFRecordDataset", ["map", "concatenate"])]


def facts_of_map(source: str):
    model = build(source)
    # (every map, those of chains nothing reads too: the facts are the subject here)
    (site,) = [site for site in model.op_sites.values() if site.op.name == "map"]
    return site.op.facts


def test_py_function_through_a_decorator_of_this_module():
    facts = facts_of_map("""
        import tensorflow as tf
        def wrap(func):
            def wrapper(*args):
                return tf.py_function(func, inp=args, Tout=tf.float32)
            return wrapper
        @wrap
        def slow(x):
            return x
        tf.data.Dataset.range(3).map(slow)
    """)
    assert facts.py_function is not None


def test_randomness_of_a_callable_object_follows_its_constructor_flags():
    source = """
        import tensorflow as tf
        class Preprocess:
            def __init__(self, train):
                self._train = train
            def __call__(self, image):
                if self._train:
                    image = tf.image.random_flip_left_right(image)
                return image
        tf.data.Dataset.range(3).map(Preprocess(train={flag}))
    """
    assert facts_of_map(source.replace("{flag}", "True")).randomness is not None
    assert facts_of_map(source.replace("{flag}", "False")).randomness is None


def test_randomness_through_a_list_of_random_layers_looped_over_in_a_helper():
    facts = facts_of_map("""
        import tensorflow as tf
        layers = [tf.keras.layers.RandomFlip(), tf.keras.layers.RandomRotation(0.1)]
        def augment(x):
            for layer in layers:
                x = layer(x)
            return x
        tf.data.Dataset.range(3).map(lambda x: augment(x))
    """)
    assert facts.randomness is not None


def compiled(source: str):
    return build(source).compiles


def test_optimizer_read_off_a_model_is_that_model_s():
    base, clone = compiled("""
        import keras
        base = keras.Sequential([keras.layers.Dense(1)])
        base.compile(optimizer=keras.optimizers.Adam(), loss='mse')
        clone = keras.models.clone_model(base)
        clone.compile(optimizer=base.optimizer, loss='mse')
    """)
    assert clone.optimizer is base.optimizer and clone.model is not base.model


def test_optimizer_class_bound_to_a_name_config_dicts_and_lists():
    first, second, third = compiled("""
        import tensorflow as tf
        cls = tf.compat.v1.keras.optimizers.Adagrad
        config = dict(loss='mse', optimizer=cls(0.1))
        a = tf.keras.Sequential([])
        a.compile(**config)
        b = tf.keras.Sequential([])
        b.compile(config['optimizer'])
        opt = tf.keras.optimizers.SGD()
        b.compile(optimizer=[opt, opt])
    """)
    assert first.optimizer is not None and first.optimizer.kind == "keras.optimizers.Adagrad"
    assert second.optimizer is first.optimizer
    assert len(third.optimizers) == 2 and third.optimizers[0] is third.optimizers[1]


def test_consumers_say_how_the_data_is_used():
    model = build("""
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).map(f)
        peeked = ds.batch(2)
        first = next(iter(peeked))
        for x in peeked.take(1):
            print(x)
        print(peeked.element_spec)
        vocab = ds.shuffle(8)
        layer.adapt(vocab)
        model.evaluate(ds.batch(4).shuffle(2))
    """)
    peek_batch = next(s.op for s in model.ops("batch") if s.op.call.args[0].value.value == "2")
    assert {c.kind for c in model.consumers_of(peek_batch)} == {"peek", "inspect"}
    assert model.only_used_for(peek_batch, LOOKS)
    assert model.only_used_for(next(s.op for s in model.ops("map")), NOT_TRAINING)
    assert not model.only_used_for(next(s.op for s in model.ops("map")), LOOKS)


def test_a_dataset_with_no_known_use_is_not_called_unused():
    model = build("""
        import tensorflow as tf
        ds = tf.data.TFRecordDataset(files).shuffle(8)
    """)
    assert not model.only_used_for(next(s.op for s in model.ops("shuffle")), NOT_TRAINING)
