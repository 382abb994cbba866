"""OpenCV 4.x DNN's detections on yolo-fastest-1.1 with dog.jpg: the independent reference for
FoldKit's YOLO decoding.

The input tensor is FoldKit's own preprocessing of dog.jpg (stretch to 320x320, RGB, /255), written by
`foldkit fixtures --image`, so both sides see exactly the same numbers; what is compared is the network
and the box decoding. OpenCV's [yolo] layer decodes boxes itself (x, y, w, h as fractions of the input,
objectness, then objectness x class probability per class); we keep class scores > 0.3 and apply
per-class NMS at IoU 0.5 with cv2.dnn.NMSBoxes, like FoldKit's defaults.

Run (from the repository root, ../shared beside it):
  pip install "opencv-python-headless<5"
  swift build -c release
  python3 Fixtures/detections/generate.py
"""
import json, os, subprocess, sys, tempfile
import cv2
import numpy as np

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
model = os.path.join(root, "..", "shared", "real-models", "yolo-fastest-1.1")
cfg, weights, image = (os.path.join(model, f) for f in ["yolo-fastest-1.1.cfg", "yolo-fastest-1.1.weights", "dog.jpg"])
foldkit = os.path.join(root, ".build", "release", "foldkit")
threshold, nms = 0.3, 0.5

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "fixtures")
    subprocess.run([foldkit, "fixtures", cfg, weights, "--image", image, "--resize", "stretch", "--out", out], check=True, stdout=subprocess.DEVNULL)
    blob = np.load(os.path.join(out, "input.npy"))

net = cv2.dnn.readNetFromDarknet(cfg, weights)
net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
net.setInput(blob)
outputs = net.forward(net.getUnconnectedOutLayersNames())
boxes, scores, classes = [], [], []
for output in outputs:
    for row in output:
        class_scores = row[5:]
        for k in np.nonzero(class_scores > threshold)[0]:
            boxes.append([float(v) for v in row[:4]])
            scores.append(float(class_scores[k]))
            classes.append(int(k))
kept = []
for k in sorted(set(classes)):
    idx = [i for i, c in enumerate(classes) if c == k]
    rects = [[boxes[i][0] - boxes[i][2] / 2, boxes[i][1] - boxes[i][3] / 2, boxes[i][2], boxes[i][3]] for i in idx]
    for j in np.array(cv2.dnn.NMSBoxes(rects, [scores[i] for i in idx], threshold, nms)).flatten():
        i = idx[int(j)]
        kept.append({"classIndex": classes[i], "score": scores[i], "x": boxes[i][0], "y": boxes[i][1], "width": boxes[i][2], "height": boxes[i][3]})
kept.sort(key=lambda d: -d["score"])
result = {"model": "yolo-fastest-1.1", "image": "dog.jpg", "resize": "stretch", "channelOrder": "rgb", "inputShape": list(blob.shape),
          "threshold": threshold, "nms": nms, "opencvVersion": cv2.__version__, "detections": kept}
json.dump(result, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "yolo-fastest-1.1-dog.json"), "w"), indent=1)
print(f"{len(kept)} boxes:", [(d["classIndex"], round(d["score"], 3)) for d in kept])
