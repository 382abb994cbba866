#!/usr/bin/env python3
"""Cross-check of the OpenCV references against an independent float64 numpy forward pass.

For the real models built only from [convolutional] (with or without batch norm), [connected],
[maxpool], [avgpool], [softmax], [dropout] and [cost] - cifar_small, mnist_lenet, DroNet_car -
this recomputes every layer from the .cfg and .weights with numpy (batch norm as
(x - mean) / sqrt(var + 1e-6), like OpenCV) and prints max|numpy - opencv| / max|opencv| per layer.
It checks the references themselves (and the Darknet index -> OpenCV layer mapping), not FoldKit.
Measured: at most 5.6e-6 (cifar_small), 5.4e-7 (mnist_lenet), 7.3e-7 (DroNet_car).

Usage, from anywhere: python3 Fixtures/opencv/crosscheck_numpy.py cifar_small mnist_lenet DroNet_car
"""
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate as g  # noqa: E402
def conv(x,w,b,stride,pad):
    C,H,W=x.shape; O,_,k,_=w.shape
    xp=np.pad(x,((0,0),(pad,pad),(pad,pad)))
    Ho=(H+2*pad-k)//stride+1; Wo=(W+2*pad-k)//stride+1
    out=np.zeros((O,Ho,Wo))
    for dy in range(k):
        for dx in range(k):
            patch=xp[:,dy:dy+stride*Ho:stride,dx:dx+stride*Wo:stride]
            out+=np.einsum('oc,chw->ohw',w[:,:,dy,dx],patch)
    return out+b[:,None,None]
def run(model):
    d=json.load(open(HERE / model / 'meta.json'))
    cfg=g.DEFAULT_SHARED / d['cfg']; wf=open(g.DEFAULT_SHARED / d['weights']['path'],'rb').read()
    maj,mnr,rev=np.frombuffer(wf[:12],np.int32); off=20 if maj*10+mnr>=2 else 16
    W=np.frombuffer(wf[off:],np.float32).astype(np.float64); p=0
    def take(n):
        nonlocal p; r=W[p:p+n]; p+=n; return r
    x=np.load(HERE / model / 'input.npy')[0].astype(np.float64)
    outs=[]
    for i,(s,kv) in enumerate(g.parse_cfg(cfg)[1:]):
        act=kv.get('activation','logistic' if s=='convolutional' else 'linear')
        if s=='convolutional':
            n=int(kv['filters']);k=int(kv['size']);st=int(kv.get('stride',1));pad=k//2 if int(kv.get('pad',0)) else int(kv.get('padding',0))
            C=x.shape[0]; b=take(n); bn=int(kv.get('batch_normalize',0))
            if bn: sc=take(n);mu=take(n);var=take(n)
            w=take(n*C*k*k).reshape(n,C,k,k)
            y=conv(x,w,np.zeros(n),st,pad)
            if bn: y=(y-mu[:,None,None])/np.sqrt(var[:,None,None]+1e-6)*sc[:,None,None]
            x=y+b[:,None,None]
        elif s=='connected':
            n=int(kv['output']); b=take(n); w=take(n*x.size).reshape(n,-1); x=w@x.reshape(-1)+b
        elif s=='maxpool':
            k=int(kv.get('size',2)); st=int(kv.get('stride',2)); pad=int(kv.get('padding',k-1))
            C,H,Wd=x.shape; Ho=(H+pad-k)//st+1; Wo=(Wd+pad-k)//st+1
            xp=np.full((C,H+pad+k,Wd+pad+k),-np.inf); xp[:,pad//2:pad//2+H,pad//2:pad//2+Wd]=x
            x=np.max([xp[:,dy:dy+st*Ho:st,dx:dx+st*Wo:st] for dy in range(k) for dx in range(k)],axis=0)
        elif s=='avgpool': x=x.mean(axis=(1,2))[:,None,None]
        elif s=='softmax': e=np.exp(x-x.max()); x=e/e.sum()
        elif s in ('dropout','cost'): pass
        if act=='leaky': x=np.where(x>0,x,0.1*x)
        elif act=='relu': x=np.maximum(x,0)
        elif act=='logistic': x=1/(1+np.exp(-x))
        outs.append(x)
    assert p==len(W),(p,len(W))
    for l in d['layers']:
        r=np.load(HERE / model / l['file']).astype(np.float64)
        o=outs[l['index']]
        assert o.size==r.size,(l,o.shape,r.shape)
        print(model,l['index'],l['type'],'%.2e'%(np.abs(o.reshape(-1)-r.reshape(-1)).max()/np.abs(r).max()))
for m in sys.argv[1:]: run(m)
