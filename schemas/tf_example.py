"""`tf.train.Example` wire format without importing TensorFlow.

Workers encode millions of records; importing TensorFlow costs each worker
seconds and hundreds of MB just to reach three protobuf messages. Protocol
buffers are defined by field numbers, so messages built here from the
published field layout of `tensorflow/core/example/{example,feature}.proto`
serialise to exactly the bytes `tf.train.Example` reads (the tests check this
with TensorFlow itself).

Layout (field numbers are the wire contract):
    BytesList { repeated bytes value = 1; }
    FloatList { repeated float value = 1 [packed]; }
    Int64List { repeated int64 value = 1 [packed]; }
    Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
                             Int64List int64_list = 3; } }
    Features  { map<string, Feature> feature = 1; }
    Example   { Features features = 1; }
"""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_PACKAGE = "rewrite_mining.tfexample"  # private name: never clashes with TF's own pool


def _build():
    fdp = descriptor_pb2.FileDescriptorProto(
        name="rewrite_mining/tf_example.proto", package=_PACKAGE, syntax="proto3")
    lbl_rep = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
    lbl_opt = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
    t = descriptor_pb2.FieldDescriptorProto

    def add_list(name, ftype, packed):
        msg = fdp.message_type.add(name=name)
        field = msg.field.add(name="value", number=1, label=lbl_rep, type=ftype)
        if packed:
            field.options.packed = True

    add_list("BytesList", t.TYPE_BYTES, False)
    add_list("FloatList", t.TYPE_FLOAT, True)
    add_list("Int64List", t.TYPE_INT64, True)

    feature = fdp.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, (fname, tname) in enumerate(
            [("bytes_list", "BytesList"), ("float_list", "FloatList"), ("int64_list", "Int64List")], 1):
        feature.field.add(name=fname, number=number, label=lbl_opt, type=t.TYPE_MESSAGE,
                          type_name=f".{_PACKAGE}.{tname}", oneof_index=0)

    features = fdp.message_type.add(name="Features")
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, label=lbl_opt, type=t.TYPE_STRING)
    entry.field.add(name="value", number=2, label=lbl_opt, type=t.TYPE_MESSAGE,
                    type_name=f".{_PACKAGE}.Feature")
    features.field.add(name="feature", number=1, label=lbl_rep, type=t.TYPE_MESSAGE,
                       type_name=f".{_PACKAGE}.Features.FeatureEntry")

    example = fdp.message_type.add(name="Example")
    example.field.add(name="features", number=1, label=lbl_opt, type=t.TYPE_MESSAGE,
                      type_name=f".{_PACKAGE}.Features")

    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))
            for name in ("Example", "Features", "Feature")}


_CLASSES = _build()
Example = _CLASSES["Example"]
Feature = _CLASSES["Feature"]
